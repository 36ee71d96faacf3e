package topology

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// TargetKapsule is a managed cluster (Scaleway Kapsule): the control plane,
// the CNI, the CSI and CoreDNS are the provider's, the unit declared is a
// pool, and the cluster is read through the provider's API (ARCHITECTURE.md "Phases").
const TargetKapsule TargetKind = "kapsule"

// Kapsule phases (ARCHITECTURE.md "Phases": cluster → pools → layers).
const (
	PhaseCluster = "cluster"
	PhasePools   = "pools"

	PhaseKindCluster = "cluster"
	PhaseKindPools   = "pools"
)

// DefaultScalewayAPIURL is the provider's public API (scaleway-sdk-go
// scw/client.go defaultOptions: WithAPIURL("https://api.scaleway.com")).
const DefaultScalewayAPIURL = "https://api.scaleway.com"

// KapsuleRegions are the regions the SDK's k8s/v1 client serves
// (scaleway-sdk-go api/k8s/v1 API.Regions: fr-par, nl-ams, pl-waw, it-mil).
var KapsuleRegions = []string{"fr-par", "nl-ams", "pl-waw", "it-mil"}

// Scaleway is the `scaleway:` section of a kapsule stack: where the cluster
// is and which credentials read it.
type Scaleway struct {
	// Region is one of KapsuleRegions.
	Region string `json:"region"`
	// ClusterID is the cluster's identity (cluster names are not unique).
	ClusterID string `json:"cluster_id"`
	// ProjectID, when set, is the project the cluster must belong to.
	ProjectID string `json:"project_id,omitempty"`
	// Profile names a profile of the scw config file.
	Profile string `json:"profile,omitempty"`
	// APIURL is the provider's API URL when it is not the default; it is the
	// only other URL nestor sends requests and credentials to.
	APIURL string `json:"api_url,omitempty"`
	// Type, when set, is the cluster type (control-plane offer) the
	// cluster must be: FAMILY or FAMILY-dedicated-N (ParseClusterType).
	Type string `json:"type,omitempty"`
	// ClusterName, when set, is the name the cluster must have (a rename
	// is a step, in place, that disrupts the cluster: kapsule_immutable.go).
	ClusterName string `json:"cluster_name,omitempty"`
	// CNI, PrivateNetworkID, PodCIDR and ServiceCIDR, when set, are what
	// the cluster must have been created with: the provider cannot change
	// them in place (kapsule_immutable.go).
	CNI              string `json:"cni,omitempty"`
	PrivateNetworkID string `json:"private_network_id,omitempty"`
	PodCIDR          string `json:"pod_cidr,omitempty"`
	ServiceCIDR      string `json:"service_cidr,omitempty"`
	// ACL, when set, are the rules the API server's ACL must hold, in any
	// order (kapsule_acl.go); nil when not declared.
	ACL []ACLRule `json:"acl,omitempty"`
}

// Pool is one declared node pool of a kapsule stack: a fixed Size, or
// Autoscaling between its Min and Max (exactly one of the two).
type Pool struct {
	Name     string `json:"name"`
	NodeType string `json:"node_type"`
	// Size is the fixed node count (0 with Autoscaling).
	Size        int          `json:"size,omitempty"`
	Zone        string       `json:"zone,omitempty"`
	Autoscaling *Autoscaling `json:"autoscaling,omitempty"`
	// PlacementGroupID, RootVolumeType, RootVolumeSize (as written, e.g.
	// "20GB": VolumeSizeBytes reads it) and PublicIPDisabled, when set, are
	// what the pool must have been created with: the provider cannot change
	// them in place (kapsule_immutable.go).
	PlacementGroupID string `json:"placement_group_id,omitempty"`
	RootVolumeType   string `json:"root_volume_type,omitempty"`
	RootVolumeSize   string `json:"root_volume_size,omitempty"`
	PublicIPDisabled *bool  `json:"public_ip_disabled,omitempty"`
}

// Autoscaling is a pool's autoscaling range.
type Autoscaling struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// kapsuleProviderLayers are the layer names a kapsule stack may not declare,
// each with what it is: the provider installs and upgrades them in
// kube-system — the CNI chosen at creation (scaleway-sdk-go api/k8s/v1 CNI:
// cilium, cilium_native, calico, kilo; weave and flannel were offered
// before), the Block Storage CSI (scaleway/scaleway-csi), CoreDNS,
// kube-proxy, the cloud controller manager
// (scaleway/scaleway-cloud-controller-manager), the cluster autoscaler
// (Cluster.autoscaler_config) and the konnectivity agent that joins the
// nodes to the managed control plane.
var kapsuleProviderLayers = map[string]string{
	"cilium": "the CNI (cluster.cni)", "cilium-native": "the CNI (cluster.cni)", "calico": "the CNI (cluster.cni)",
	"weave": "the CNI (cluster.cni)", "flannel": "the CNI (cluster.cni)", "kilo": "the CNI (cluster.cni)",
	"csi": "the CSI", "scaleway-csi": "the CSI", "csi-scaleway": "the CSI", "scw-csi": "the CSI",
	"coredns": "CoreDNS", "kube-dns": "CoreDNS",
	"kube-proxy":               "kube-proxy",
	"cloud-controller-manager": "the cloud controller", "scaleway-cloud-controller-manager": "the cloud controller", "ccm": "the cloud controller",
	"cluster-autoscaler": "the cluster autoscaler",
	"konnectivity":       "konnectivity", "konnectivity-agent": "konnectivity",
}

// KapsuleProviderLayer says whether a layer called name is one the provider
// of a kapsule stack owns (see kapsuleProviderLayers), and what it is. A
// layer of the catalog's cni category is always the provider's.
func KapsuleProviderLayer(name string) (string, bool) {
	if what, ok := kapsuleProviderLayers[name]; ok {
		return what, true
	}
	if d, ok := CatalogLayer(name); ok && d.Category == CategoryCNI {
		return "the CNI (cluster.cni)", true
	}
	return "", false
}

var (
	uuidRE     = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	zoneRE     = regexp.MustCompile(`^[a-z]{2}-[a-z]{3}-[0-9]$`)
	nodeTypeRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	patchRE    = regexp.MustCompile(`^v?[0-9]+\.[0-9]+\.[0-9]+$`)
)

var (
	scalewayKeys    = []string{"region", "cluster_id", "project_id", "profile", "api_url", "type", "cluster_name", "cni", "private_network_id", "pod_cidr", "service_cidr", "acl"}
	poolKeys        = []string{"name", "node_type", "size", "zone", "autoscaling", "placement_group_id", "root_volume_type", "root_volume_size", "public_ip_disabled"}
	autoscalingKeys = []string{"min", "max"}
)

// kapsuleNodes remembers where kapsule-only and kapsule-forbidden keys were
// written, for the checks that need target_kind.
type kapsuleNodes struct {
	scaleway, pools, nodes, inventory, autoUpgrade, version *yaml.Node
	// poolsValue is the value of the pools: key (nil when absent).
	poolsValue *yaml.Node
	// providerLayers are declared layers the provider owns, reported only
	// when the stack is a kapsule stack (elsewhere they are ordinary
	// unknown names).
	providerLayers []deferredLayer
	// layerAt is where each declared layer's name was written.
	layerAt map[string]*yaml.Node
	// placements are the pools that declare a placement group
	// (kapsule_immutable.go).
	placements []placementUse
}

type deferredLayer struct {
	at    *yaml.Node
	field string
	name  string
	// known: a catalog layer or a custom one (valid on other kinds).
	known bool
}

func (p *parser) scaleway(t *Topology, v *yaml.Node) {
	s := &Scaleway{}
	t.Scaleway = s
	m, ok := p.mapping(v, "scaleway", "write it as scaleway: {region: fr-par, cluster_id: UUID}")
	if !ok {
		return
	}
	for _, kv := range p.pairs(m, "scaleway") {
		f := "scaleway." + kv.key.Value
		val, isStr := "", false
		switch kv.key.Value {
		case "region", "cluster_id", "project_id", "profile", "api_url", "type":
			val, isStr = p.str(kv.value, f)
		case "cluster_name", "cni", "private_network_id", "pod_cidr", "service_cidr", "acl":
			p.scalewayImmutable(t, s, kv.key, kv.value) // kapsule_immutable.go
			continue
		default:
			p.unknownKey(kv.key, "scaleway", scalewayKeys)
			continue
		}
		if !isStr {
			continue
		}
		at := resolve(kv.value)
		switch kv.key.Value {
		case "region":
			s.Region = val
			if !slices.Contains(KapsuleRegions, val) {
				fix := "use one of " + strings.Join(KapsuleRegions, ", ")
				if c := closest(val, KapsuleRegions); len(c) > 0 {
					fix = "did you mean " + c[0] + "? " + fix
				}
				p.add(at, f, fix, "%q is not a Kapsule region", val)
			}
		case "cluster_id", "project_id":
			if !uuidRE.MatchString(val) {
				p.add(at, f, "copy the UUID from the console or `scw k8s cluster list`", "%q is not a UUID", val)
				continue
			}
			if kv.key.Value == "cluster_id" {
				s.ClusterID = strings.ToLower(val)
			} else {
				s.ProjectID = strings.ToLower(val)
			}
		case "profile":
			if val == "" {
				p.add(at, f, "name a profile of the scw config file, or remove the key", "is empty")
			}
			s.Profile = val
		case "api_url":
			if err := CheckAPIURL(val); err != nil {
				p.add(at, f, "write the provider's API URL, e.g. "+DefaultScalewayAPIURL, "%v", err)
				continue
			}
			s.APIURL = val
		case "type":
			p.clusterType(t, s, kv.key, at, val)
		}
	}
}

// CheckAPIURL accepts a provider API URL: https with a host and no user
// info, path, query or fragment; plain http only to a loopback address (a
// local stand-in of the API). The error never repeats a URL with user info.
func CheckAPIURL(s string) error {
	u, err := url.Parse(s)
	if err == nil && u.User != nil || err != nil && strings.Contains(s, "@") {
		return fmt.Errorf("the API URL must not carry a user name or password")
	}
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL with a host", s)
	}
	if strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q: the API URL has no path, query or fragment", s)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if host == "localhost" {
			return nil
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("%q: plain http is accepted only on a loopback address; use https", s)
	}
	return fmt.Errorf("%q: the scheme must be https", s)
}

func (p *parser) pools(t *Topology, v *yaml.Node) {
	v = resolve(v)
	if isNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		p.add(v, "pools", "write a list: - {name: default, node_type: PRO2-XXS, size: 3}", "must be a list, found %s", kindName(v))
		return
	}
	first := map[string]int{}
	for i, item := range v.Content {
		field := fmt.Sprintf("pools[%d]", i)
		m, ok := p.mapping(item, field, "write it as {name: POOL, node_type: TYPE, size: N}")
		if !ok {
			if r := resolve(item); isNull(r) {
				p.add(r, field, "remove the empty entry", "empty pool")
			}
			continue
		}
		var pool Pool
		var nameNode, sizeNode, autoNode *yaml.Node
		for _, kv := range p.pairs(m, field) {
			f := field + "." + kv.key.Value
			at := resolve(kv.value)
			switch kv.key.Value {
			case "name":
				nameNode = at
				pool.Name, _ = p.str(kv.value, f)
			case "node_type":
				if s, ok := p.str(kv.value, f); ok {
					if !nodeTypeRE.MatchString(s) {
						p.add(at, f, "write an Instance type such as PRO2-XXS or DEV1-M", "%q is not a node type", s)
					} else {
						p.nodeTypeWarning(t, at, f, s) // kapsule_immutable.go
					}
					pool.NodeType = s
				}
			case "size":
				sizeNode = kv.key
				if n, ok := p.integer(kv.value, f); ok {
					if n < 0 {
						p.add(at, f, "use 0 or more", "%d is not a pool size", n)
					}
					pool.Size = n
				}
			case "zone":
				if s, ok := p.str(kv.value, f); ok {
					if !zoneRE.MatchString(s) {
						p.add(at, f, "write a zone such as fr-par-1", "%q is not a zone", s)
					}
					pool.Zone = s
				}
			case "autoscaling":
				autoNode = kv.key
				pool.Autoscaling = p.autoscaling(kv.value, f)
			case "placement_group_id", "root_volume_type", "root_volume_size", "public_ip_disabled":
				p.poolImmutable(&pool, kv.key, kv.value, field) // kapsule_immutable.go
			default:
				p.unknownKey(kv.key, field, poolKeys)
			}
		}
		switch {
		case pool.Name == "":
			at := nameNode
			if at == nil {
				at = m
			}
			p.add(at, field+".name", "add name: POOL", "a pool needs a name")
		case len(pool.Name) > 63 || !dns1123RE.MatchString(pool.Name):
			p.add(nameNode, field+".name", "use lowercase letters, digits and '-'", "%q is not a valid pool name", pool.Name)
		default:
			if line, dup := first[pool.Name]; dup {
				p.add(nameNode, field+".name", "remove one of them or rename it", "duplicate pool %q (first declared at line %d)", pool.Name, line)
			} else {
				first[pool.Name] = nameNode.Line
				t.setPosition(PoolKey(pool.Name), nameNode)
			}
		}
		if pool.NodeType == "" {
			p.add(m, field+".node_type", "add node_type: TYPE (e.g. PRO2-XXS)", "a pool needs a node_type")
		}
		switch {
		case sizeNode != nil && autoNode != nil:
			p.add(sizeNode, field+".size", "keep autoscaling: {min, max} and remove size: (the autoscaler sets it)", "size: and autoscaling: cannot both be declared")
		case sizeNode == nil && autoNode == nil:
			p.add(m, field, "add size: N, or autoscaling: {min: N, max: M}", "a pool needs a size or an autoscaling range")
		}
		t.Pools = append(t.Pools, pool)
		p.notePlacement(pool, field) // kapsule_immutable.go
	}
	p.placementWarnings(t) // kapsule_immutable.go
}

func (p *parser) autoscaling(v *yaml.Node, field string) *Autoscaling {
	a := &Autoscaling{}
	if isNull(v) { // autoscaling: with no range is not a range of 0 to 0
		p.add(resolve(v), field, "write both: {min: N, max: M}", "autoscaling needs min and max")
		return a
	}
	m, ok := p.mapping(v, field, "write it as autoscaling: {min: 0, max: 5}")
	if !ok {
		return a
	}
	var minNode, maxNode *yaml.Node
	for _, kv := range p.pairs(m, field) {
		f := field + "." + kv.key.Value
		switch kv.key.Value {
		case "min":
			minNode = resolve(kv.value)
			a.Min, _ = p.integer(kv.value, f)
		case "max":
			maxNode = resolve(kv.value)
			a.Max, _ = p.integer(kv.value, f)
		default:
			p.unknownKey(kv.key, field, autoscalingKeys)
		}
	}
	switch {
	case minNode == nil || maxNode == nil:
		p.add(m, field, "write both: {min: N, max: M}", "autoscaling needs min and max")
	case a.Min < 0:
		p.add(minNode, field+".min", "use 0 or more", "%d is not a pool size", a.Min)
	case a.Max < 1 || a.Max < a.Min:
		p.add(maxNode, field+".max", "use at least 1 and at least min", "max %d is below min %d or zero", a.Max, a.Min)
	}
	return a
}

// checkKapsule runs the checks that depend on target_kind kapsule: the
// scaleway: section and pools: are required there and refused elsewhere;
// nodes:, inventory: and lima: are refused there (declare pools instead);
// a layer the provider owns is refused there, naming it; with
// kubernetes.auto_upgrade true, a full x.y.z version is a warning (the
// provider moves the patch in its maintenance window).
func (p *parser) checkKapsule(t *Topology, root *yaml.Node, limaNode *yaml.Node) {
	k := p.kapsule
	if t.TargetKind != TargetKapsule {
		if k.scaleway != nil {
			p.add(k.scaleway, "scaleway", "remove it, or set target_kind: kapsule", "scaleway: is only for target_kind: kapsule")
		}
		if k.pools != nil {
			p.add(k.pools, "pools", "declare nodes: instead, or set target_kind: kapsule", "pools: are only for target_kind: kapsule")
		}
		if k.autoUpgrade != nil {
			p.add(k.autoUpgrade, "kubernetes.auto_upgrade", "remove it: only a managed cluster upgrades itself", "auto_upgrade is only for target_kind: kapsule")
		}
		for _, d := range k.providerLayers {
			if !d.known {
				p.add(d.at, d.field, p.layerFix(d.name), "%q is not in the layer catalog and has no detect:", d.name)
			}
		}
		return
	}
	if k.scaleway == nil {
		p.add(root, "scaleway", "add scaleway: {region: fr-par, cluster_id: UUID}", "is required for target_kind: kapsule")
	} else if t.Scaleway != nil {
		if t.Scaleway.Region == "" && !p.hasFieldError("scaleway.region") {
			p.add(k.scaleway, "scaleway.region", "add region: fr-par (or nl-ams, pl-waw, it-mil)", "is required")
		}
		if t.Scaleway.ClusterID == "" && !p.hasFieldError("scaleway.cluster_id") {
			p.add(k.scaleway, "scaleway.cluster_id", "add cluster_id: UUID (cluster names are not unique)", "is required")
		}
	}
	if k.nodes != nil {
		p.add(k.nodes, "nodes", "declare pools: instead, e.g. - {name: default, node_type: PRO2-XXS, size: 3}", "a kapsule cluster's nodes are the provider's; nodes: are not declared")
	}
	if limaNode != nil {
		p.add(limaNode, "lima", "remove the lima: section and declare pools:", "lima: is only for target_kind: lima")
	}
	if k.inventory != nil {
		p.add(k.inventory, "inventory", "remove it: nestor never connects to a managed node", "inventory: is not used on a kapsule stack")
	}
	// No pools: the key missing, or present with no entry (pools:, pools: ~,
	// pools: []). Entries that are all invalid have errors of their own.
	if len(t.Pools) == 0 && k.pools == nil {
		p.add(root, "pools", "add pools: - {name: default, node_type: PRO2-XXS, size: 3}", "a kapsule stack declares at least one pool")
	} else if r := resolve(k.poolsValue); len(t.Pools) == 0 && r != nil && (isNull(r) || (r.Kind == yaml.SequenceNode && len(r.Content) == 0)) {
		p.add(k.pools, "pools", "list at least one: - {name: default, node_type: PRO2-XXS, size: 3}", "a kapsule stack declares at least one pool, and pools: is empty")
	}
	for _, d := range k.providerLayers {
		what, _ := KapsuleProviderLayer(d.name)
		p.add(d.at, d.field, "remove it: the provider installs and upgrades "+what+" of a Kapsule cluster", "%q is the provider's on a kapsule stack (%s), not a layer to declare", d.name, what)
	}
	for _, ref := range t.Layers {
		if ref.Name == PhaseCluster || ref.Name == PhasePools {
			p.add(k.layerAt[ref.Name], "layers", "rename the layer", "%q is the name of a kapsule phase and cannot name a layer", ref.Name)
		}
	}
	if t.Kubernetes.AutoUpgrade != nil && *t.Kubernetes.AutoUpgrade && patchRE.MatchString(t.Kubernetes.Version) && k.version != nil {
		w := &Error{File: p.file, Line: k.version.Line, Column: k.version.Column, Field: "kubernetes.version",
			Msg: fmt.Sprintf("%q pins a patch, but auto_upgrade: true lets the provider move the patch in its maintenance window", t.Kubernetes.Version),
			Fix: fmt.Sprintf("declare the minor %q", minorText(t.Kubernetes.Version))}
		t.Warnings = append(t.Warnings, w.Error())
	}
}

func (p *parser) hasFieldError(field string) bool {
	for _, e := range p.errs {
		if e.Field == field {
			return true
		}
	}
	return false
}

// minorText returns "1.35" of "1.35.3" or "v1.35.3".
func minorText(v string) string {
	v = strings.TrimPrefix(v, "v")
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}
