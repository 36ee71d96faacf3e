package topology

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// What a managed cluster and its pools cannot change in place. The
// provider's API updates a cluster's name, description, tags, autoscaler,
// auto-upgrade, feature gates, admission plugins, OpenID Connect and
// certificate SANs, and a pool's size, autoscaling, autohealing, tags,
// kubelet arguments, upgrade policy and security group — nothing else
// (scaleway-sdk-go api/k8s/v1 UpdateClusterRequest, UpdatePoolRequest);
// Terraform's provider recreates a cluster or a pool for each other field
// (terraform-provider-scaleway internal/services/k8s: ForceNew). The keys
// below declare such values: compared with the cluster, a difference is
// never an in-place step (probes/kapsule immutable.go).

// ScalewayKey is the Positions key of scaleway.NAME ("scaleway.cni").
func ScalewayKey(name string) string { return KeyScaleway + "." + name }

// KapsuleCNIs are the CNIs a Kapsule cluster is created with
// (scaleway-sdk-go api/k8s/v1 CNI).
var KapsuleCNIs = []string{"cilium", "cilium_native", "calico", "kilo", "none"}

// KapsuleVolumeTypes are a pool's root volume types (scaleway-sdk-go
// api/k8s/v1 PoolVolumeType: l_ssd local, sbs_5k and sbs_15k remote, b_ssd
// the legacy remote type).
var KapsuleVolumeTypes = []string{"l_ssd", "sbs_5k", "sbs_15k", "b_ssd"}

// PlacementGroupMax is how many instances a placement group holds
// (scaleway-sdk-go api/k8s/v1 Pool.PlacementGroupID: "placement groups are
// limited to 20 instances").
const PlacementGroupMax = 20

// NodeTypeKey is the form node types are compared in: the API answers
// "pro2_xxs" where the console, the CLI and a topology write "PRO2-XXS"
// (Scaleway Instance commercial types), so case and '-'/'_' are ignored.
func NodeTypeKey(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")
}

// ExcludedNodeType says whether Kapsule refuses the node type s for a pool
// for too little memory, in any spelling (DEV1-S, dev1_s, Dev1-S): DEV1-S,
// PLAY2-PICO and the STARDUST types, as the SDK and Terraform's docs list
// them ("Nodes with insufficient memory are not eligible (DEV1-S,
// PLAY2-PICO, STARDUST)", scaleway-sdk-go api/k8s/v1 Pool.NodeType).
func ExcludedNodeType(s string) bool {
	k := NodeTypeKey(s)
	return k == "dev1_s" || k == "play2_pico" || strings.HasPrefix(k, "stardust")
}

// excludedNodeTypeWords say what the two sources say of a pool's node type:
// they disagree, so both are said.
const excludedNodeTypeWords = "the provider's SDK and Terraform docs list DEV1-S, PLAY2-PICO and STARDUST as not eligible for too little memory; " +
	"its CLI guide (Creating and managing a Kubernetes Kapsule with CLI) says types with less than 4 GB of memory are not eligible — the two sources disagree"

// nodeTypeWarning warns, at load, of a pool node type the provider
// excludes (ExcludedNodeType).
func (p *parser) nodeTypeWarning(t *Topology, at *yaml.Node, field, s string) {
	if ExcludedNodeType(s) {
		p.warn(t, at, field, "choose a type with 4 GB of memory or more, e.g. DEV1-M or PRO2-XXS",
			"%s cannot run a Kapsule pool: %s", s, excludedNodeTypeWords)
	}
}

// placementUse is a pool that declares a placement group: where its
// placement_group_id was written, and the pool once read.
type placementUse struct {
	field string
	at    *yaml.Node
	pool  *Pool
}

// notePlacement records the pool read at field for the placement group
// check (placementWarnings).
func (p *parser) notePlacement(pool Pool, field string) {
	for i := range p.kapsule.placements {
		if u := &p.kapsule.placements[i]; u.field == field && u.pool == nil {
			u.pool = &pool
		}
	}
}

// poolMost is the most nodes a declared pool holds: its size, or its
// autoscaling maximum.
func poolMost(pl Pool) int {
	if pl.Autoscaling != nil {
		return pl.Autoscaling.Max
	}
	return pl.Size
}

// placementWarnings warns, at load, of a placement group the declared
// pools would fill beyond PlacementGroupMax: the pools sharing it, each at
// its size or autoscaling maximum, added up.
func (p *parser) placementWarnings(t *Topology) {
	groups := map[string][]placementUse{}
	var order []string
	for _, u := range p.kapsule.placements {
		if u.pool == nil {
			continue
		}
		id := u.pool.PlacementGroupID
		if _, seen := groups[id]; !seen {
			order = append(order, id)
		}
		groups[id] = append(groups[id], u)
	}
	for _, id := range order {
		uses := groups[id]
		total := 0
		var parts []string
		for _, u := range uses {
			n := poolMost(*u.pool)
			total += n
			how := fmt.Sprintf("size %d", n)
			if u.pool.Autoscaling != nil {
				how = fmt.Sprintf("autoscaling max %d", n)
			}
			parts = append(parts, fmt.Sprintf("pool %s: %s", u.pool.Name, how))
		}
		if total <= PlacementGroupMax {
			continue
		}
		p.warn(t, uses[0].at, uses[0].field+".placement_group_id", fmt.Sprintf("keep the pools of this placement group at %d nodes or fewer in all, or spread them over placement groups", PlacementGroupMax),
			"placement group %s would hold up to %d instances (%s): a placement group holds %d at most (the provider's SDK: \"placement groups are limited to %d instances\")",
			id, total, strings.Join(parts, ", "), PlacementGroupMax, PlacementGroupMax)
	}
}

// scalewayImmutable reads the scaleway: keys that declare what the
// cluster was created with or is named (cluster_name, cni,
// private_network_id, pod_cidr, service_cidr) and acl (kapsule_acl.go),
// each an error naming the fix when it is not valid.
func (p *parser) scalewayImmutable(t *Topology, s *Scaleway, key, v *yaml.Node) {
	name := key.Value
	f := ScalewayKey(name)
	if name == "acl" {
		p.acl(t, s, key, v)
		return
	}
	t.setPosition(f, key)
	val, ok := p.str(v, f)
	if !ok {
		if isNull(v) {
			p.add(resolve(v), f, "write a value, or remove the key", "is empty")
		}
		return
	}
	at := resolve(v)
	switch name {
	case "cluster_name":
		if strings.TrimSpace(val) == "" || strings.IndexFunc(val, unicode.IsControl) >= 0 || len(val) > 100 {
			p.add(at, f, "write the cluster's name as the console shows it", "%q is not a cluster name", val)
			return
		}
		s.ClusterName = val
	case "cni":
		if !slices.Contains(KapsuleCNIs, val) {
			fix := "use one of " + strings.Join(KapsuleCNIs, ", ")
			if c := closest(strings.ToLower(strings.ReplaceAll(val, "-", "_")), KapsuleCNIs); len(c) > 0 {
				fix = "did you mean " + c[0] + "? " + fix
			}
			p.add(at, f, fix, "%q is not a Kapsule CNI", val)
			return
		}
		s.CNI = val
	case "private_network_id":
		if !uuidRE.MatchString(val) {
			p.add(at, f, "copy the Private Network's UUID from the console or `scw vpc private-network list`", "%q is not a UUID", val)
			return
		}
		s.PrivateNetworkID = strings.ToLower(val)
	case "pod_cidr", "service_cidr":
		canonical, note, err := parseRange(val, false)
		if re, bad := err.(*rangeError); bad {
			p.add(at, f, re.Fix, "%s", re.Msg)
			return
		}
		if note != "" {
			p.warn(t, at, f, "write "+canonical, "%s", note)
		}
		if name == "pod_cidr" {
			s.PodCIDR = canonical
		} else {
			s.ServiceCIDR = canonical
		}
	}
}

// poolImmutable reads the pool keys the provider cannot change in place:
// placement_group_id (a UUID), root_volume_type (KapsuleVolumeTypes),
// root_volume_size (a size with its unit: VolumeSizeBytes) and
// public_ip_disabled (a boolean).
func (p *parser) poolImmutable(pool *Pool, key, v *yaml.Node, field string) {
	f := field + "." + key.Value
	at := resolve(v)
	if key.Value == "public_ip_disabled" {
		var b bool
		if at.Kind != yaml.ScalarNode || at.Tag != "!!bool" || at.Decode(&b) != nil {
			p.add(at, f, "write true or false", "must be a boolean, found %s", kindName(at))
			return
		}
		pool.PublicIPDisabled = &b
		return
	}
	val, ok := p.str(v, f)
	if !ok {
		if isNull(v) {
			p.add(at, f, "write a value, or remove the key", "is empty")
		}
		return
	}
	switch key.Value {
	case "placement_group_id":
		if !uuidRE.MatchString(val) {
			p.add(at, f, "copy the placement group's UUID from the console or `scw instance placement-group list`", "%q is not a UUID", val)
			return
		}
		pool.PlacementGroupID = strings.ToLower(val)
		p.kapsule.placements = append(p.kapsule.placements, placementUse{field: field, at: at})
	case "root_volume_type":
		if !slices.Contains(KapsuleVolumeTypes, val) {
			fix := "use one of " + strings.Join(KapsuleVolumeTypes, ", ")
			if c := closest(strings.ToLower(strings.ReplaceAll(val, "-", "_")), KapsuleVolumeTypes); len(c) > 0 {
				fix = "did you mean " + c[0] + "? " + fix
			}
			p.add(at, f, fix, "%q is not a root volume type", val)
			return
		}
		pool.RootVolumeType = val
	case "root_volume_size":
		if _, err := VolumeSizeBytes(val); err != nil {
			p.add(at, f, `write a size with its unit, e.g. "20GB" (the provider counts in decimal GB, 10^9 bytes)`, "%v", err)
			return
		}
		pool.RootVolumeSize = val
	}
}

var volumeSizeRE = regexp.MustCompile(`^([0-9]+)\s*([KMGT]i?B)$`)

// VolumeSizeBytes reads a root volume size written with its unit into
// bytes: KB, MB, GB, TB are decimal, the provider's unit (scaleway-sdk-go
// scw.Size: GB = 1000 MB), KiB, MiB, GiB, TiB binary; the unit's case is
// ignored ("20gb"). A number without a unit is refused: bytes or
// gigabytes, nobody can tell.
func VolumeSizeBytes(s string) (uint64, error) {
	m := volumeSizeRE.FindStringSubmatch(strings.TrimSpace(upperUnit(s)))
	if m == nil {
		return 0, fmt.Errorf("%q is not a size with a unit (KB, MB, GB, TB or KiB, MiB, GiB, TiB)", s)
	}
	n, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is too large", s)
	}
	unit := map[string]uint64{"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[m[2]]
	if n > math.MaxUint64/unit {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * unit, nil
}

// upperUnit writes the unit of a size in the case VolumeSizeBytes reads
// ("20gib" → "20GiB").
func upperUnit(s string) string {
	i := strings.IndexFunc(s, unicode.IsLetter)
	if i < 0 {
		return s
	}
	u := strings.ToUpper(s[i:])
	if len(u) == 3 && u[1] == 'I' {
		u = u[:1] + "i" + u[2:]
	}
	return s[:i] + u
}

// VolumeSizeText writes a size in bytes as the provider's CLI does, in
// decimal GB when it is whole ("20 GB"), else in bytes.
func VolumeSizeText(b uint64) string {
	if b%1e9 == 0 {
		return fmt.Sprintf("%d GB", b/1e9)
	}
	return fmt.Sprintf("%d bytes", b)
}
