package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	yamlutil "k8s.io/apimachinery/pkg/util/yaml"
)

// upstreamSource is one operator's release and where its module zip keeps
// its CustomResourceDefinitions. The versions are pinned in
// tests/upstream/go.mod (with their hashes in go.sum), the only place they
// are written.
type upstreamSource struct {
	module string
	// globs are path.Match patterns of the CRD files, relative to the
	// module's folder.
	globs []string
	// render makes a file that is a Helm template plain YAML, when it is
	// one (nil: the file is plain YAML).
	render func(file string, data []byte) ([]byte, error)
}

var upstreamSources = []upstreamSource{
	{module: "github.com/rook/rook", globs: []string{"deploy/examples/crds.yaml"}},
	{module: "github.com/cloudnative-pg/cloudnative-pg", globs: []string{"config/crd/bases/*.yaml"}},
	{module: "github.com/longhorn/longhorn-manager", globs: []string{"k8s/crds.yaml"}, render: renderLonghornCRDs},
	{module: "github.com/prometheus-operator/prometheus-operator", globs: []string{"example/prometheus-operator-crd/*.yaml"}},
	{module: "github.com/cert-manager/cert-manager", globs: []string{"deploy/crds/*.yaml"}},
	{module: "github.com/external-secrets/external-secrets", globs: []string{"config/crds/bases/*.yaml"}},
	{module: "github.com/fluxcd/source-controller", globs: []string{"config/crd/bases/*.yaml"}},
	{module: "github.com/fluxcd/kustomize-controller", globs: []string{"config/crd/bases/*.yaml"}},
	{module: "github.com/fluxcd/helm-controller", globs: []string{"config/crd/bases/*.yaml"}},
	{module: "github.com/argoproj/argo-cd/v3", globs: []string{"manifests/crds/*-crd.yaml"}},
}

// longhornLabels is the one Helm expression of longhorn-manager's
// k8s/crds.yaml, a template the longhorn chart copies ("cannot be directly
// used by kubectl apply", its first line says): the chart's common labels,
// on the line of each CRD's metadata.labels.
var longhornLabels = regexp.MustCompile(`(?m)^(\s*labels:) \{\{- include "longhorn\.labels" \. \| nindent 4 \}\}$`)

// renderLonghornCRDs drops that expression, keeping each CRD's own labels
// (the lines below it), and refuses a file with any other template
// expression: a new one must be looked at, never loaded half rendered.
func renderLonghornCRDs(file string, data []byte) ([]byte, error) {
	out := longhornLabels.ReplaceAll(data, []byte("$1"))
	if i := bytes.Index(out, []byte("{{")); i >= 0 {
		line := bytes.Count(out[:i], []byte("\n")) + 1
		return nil, fmt.Errorf("%s:%d: a Helm template expression the harness does not know how to render", file, line)
	}
	return out, nil
}

// upstreamCRD is one CRD document of an upstream file.
type upstreamCRD struct {
	yaml  []byte
	where string // FILE:LINE in the module cache
}

var upstreamIndex struct {
	once sync.Once
	crds map[string]upstreamCRD // by metadata.name
	err  error
}

// UpstreamCRDs returns the named CustomResourceDefinitions (metadata.name,
// "cephclusters.ceph.rook.io") as the upstream releases pinned in
// tests/upstream/go.mod ship them, read from the Go module cache, as one
// multi-document YAML stream in the order given. The modules must be in
// the cache: `(cd tests/upstream && go mod download)` puts them there
// (.ci/run does). The error names what is missing and that command.
func UpstreamCRDs(names ...string) ([]byte, error) {
	upstreamIndex.once.Do(func() { upstreamIndex.crds, upstreamIndex.err = indexUpstreamCRDs() })
	if upstreamIndex.err != nil {
		return nil, upstreamIndex.err
	}
	var b bytes.Buffer
	var missing []string
	for _, n := range names {
		crd, ok := upstreamIndex.crds[n]
		if !ok {
			missing = append(missing, n)
			continue
		}
		fmt.Fprintf(&b, "---\n# %s\n", crd.where)
		b.Write(crd.yaml)
		if !bytes.HasSuffix(crd.yaml, []byte("\n")) {
			b.WriteByte('\n')
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("upstream CRDs not found in the modules of tests/upstream/go.mod: %s", strings.Join(missing, ", "))
	}
	return b.Bytes(), nil
}

// LoadUpstreamCRDs creates the named upstream CustomResourceDefinitions
// (see UpstreamCRDs) in c and waits until they are Established. A CRD of
// that name already in c (an earlier fixture loaded it) is left as is.
func (c *Cluster) LoadUpstreamCRDs(names ...string) error {
	ctx, cancel := opContext()
	defer cancel()
	var todo []string
	for _, n := range names {
		_, err := c.adminDynamic.Resource(crdResource).Get(ctx, n, metav1.GetOptions{})
		switch {
		case err == nil:
			continue
		case !apierrors.IsNotFound(err):
			return fmt.Errorf("CustomResourceDefinition %s: %w", n, err)
		}
		todo = append(todo, n)
	}
	if len(todo) == 0 {
		return nil
	}
	data, err := UpstreamCRDs(todo...)
	if err != nil {
		return err
	}
	return c.LoadManifests("upstream CRDs", data)
}

// upstreamCRDLine is the fixture header line that names the upstream CRDs
// a fixture needs: "# upstream-crds: NAME, NAME…" (one or more lines).
var upstreamCRDLine = regexp.MustCompile(`(?m)^# upstream-crds:(.*)$`)

// fixtureTime is a time in a fixture, written relative to when it is
// loaded: "NOW", "NOW-40s", "NOW+1440h" (a Go duration), quoted.
var fixtureTime = regexp.MustCompile(`"NOW(([-+])([0-9]+(\.[0-9]+)?(h|m|s)([0-9]+(h|m|s))*))?"`)

// LoadOperatorFixture loads the fixture at path, whose objects are custom
// resources of upstream operators with the status those operators write:
// first the upstream CRDs its "# upstream-crds:" lines name
// (LoadUpstreamCRDs), then the fixture (LoadManifests), with each quoted
// time "NOW", "NOW-40s" or "NOW+720h" replaced by that time, in UTC and RFC
// 3339, counted from now — so that a status checked "40 s ago" is 40 s old
// whenever the test runs. It returns the load time those are counted
// from.
func (c *Cluster) LoadOperatorFixture(path string) (time.Time, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, fmt.Errorf("load fixture: %w", err)
	}
	var names []string
	for _, m := range upstreamCRDLine.FindAllSubmatch(data, -1) {
		for _, n := range strings.Split(string(m[1]), ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
	}
	if len(names) > 0 {
		if err := c.LoadUpstreamCRDs(names...); err != nil {
			return time.Time{}, fmt.Errorf("%s: %w", path, err)
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	data, err = FixtureTimes(data, now)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", path, err)
	}
	return now, c.LoadManifests(path, data)
}

// FixtureTimes replaces each quoted "NOW", "NOW-D" or "NOW+D" of data (D a
// Go duration of hours, minutes and seconds) by now±D as an RFC 3339 UTC
// string.
func FixtureTimes(data []byte, now time.Time) ([]byte, error) {
	var bad error
	out := fixtureTime.ReplaceAllFunc(data, func(m []byte) []byte {
		sub := fixtureTime.FindSubmatch(m)
		t := now
		if len(sub[1]) > 0 {
			d, err := time.ParseDuration(string(sub[3]))
			if err != nil {
				bad = fmt.Errorf("fixture time %s: %v", m, err)
				return m
			}
			if string(sub[2]) == "-" {
				d = -d
			}
			t = now.Add(d)
		}
		return []byte(`"` + t.UTC().Format(time.RFC3339) + `"`)
	})
	return out, bad
}

// indexUpstreamCRDs reads every upstream source's CRD files and indexes
// their CRDs by name. A CRD name found twice is an error.
func indexUpstreamCRDs() (map[string]upstreamCRD, error) {
	dir, err := upstreamModuleDir()
	if err != nil {
		return nil, err
	}
	out := map[string]upstreamCRD{}
	var errs []error
	for _, src := range upstreamSources {
		root, err := moduleCacheDir(dir, src.module)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, g := range src.globs {
			files, _ := filepath.Glob(filepath.Join(root, g))
			if len(files) == 0 {
				errs = append(errs, fmt.Errorf("%s: no file %s in %s", src.module, g, root))
			}
			sort.Strings(files)
			for _, f := range files {
				if err := indexFile(f, src, out); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return out, errors.Join(errs...)
}

func indexFile(file string, src upstreamSource, out map[string]upstreamCRD) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if src.render != nil {
		if data, err = src.render(file, data); err != nil {
			return err
		}
	}
	start := 1
	lines := strings.SplitAfter(string(data), "\n")
	var doc []string
	flush := func() error {
		text := strings.Join(doc, "")
		if strings.TrimSpace(stripComments(text)) == "" {
			return nil
		}
		js, err := yamlutil.ToJSON([]byte(text))
		if err != nil {
			return fmt.Errorf("%s:%d: %v", file, start, err)
		}
		var head struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(js, &head); err != nil {
			return fmt.Errorf("%s:%d: %v", file, start, err)
		}
		if head.Kind != "CustomResourceDefinition" {
			return nil // a kustomization.yaml, a README…
		}
		where := fmt.Sprintf("%s:%d", file, start)
		if prev, dup := out[head.Metadata.Name]; dup {
			return fmt.Errorf("CRD %s is in both %s and %s", head.Metadata.Name, prev.where, where)
		}
		out[head.Metadata.Name] = upstreamCRD{yaml: []byte(text), where: where}
		return nil
	}
	for i, l := range lines {
		if t := strings.TrimRight(l, " \t\r\n"); t == "---" {
			if err := flush(); err != nil {
				return err
			}
			start, doc = i+2, nil
			continue
		}
		doc = append(doc, l)
	}
	return flush()
}

// upstreamModuleDir finds tests/upstream from the working folder (a test
// runs in its package's folder) upwards.
func upstreamModuleDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "tests", "upstream")
		if _, err := os.Stat(filepath.Join(cand, "go.mod")); err == nil {
			return cand, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no tests/upstream/go.mod above %s", wd)
		}
	}
}

// moduleCacheDir asks the go command, in dir (tests/upstream), where the
// module cache holds module at the version dir's go.mod requires
// (`go mod download -json MODULE`, checked against go.sum). With
// GOFLAGS=-mod=mod unset and GOPROXY=off it never reaches the network: a
// module not in the cache is an error naming the command that fetches it.
func moduleCacheDir(dir, module string) (string, error) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	cmd := exec.Command(goBin, "mod", "download", "-json", module)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOWORK=off", "GOTOOLCHAIN=local", "GOPROXY=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct {
		Dir   string
		Error string
	}
	if jerr := json.Unmarshal(out, &info); jerr != nil || info.Error != "" || info.Dir == "" || err != nil {
		why := strings.TrimSpace(info.Error + " " + stderr.String())
		if why == "" && err != nil {
			why = err.Error()
		}
		return "", fmt.Errorf("%s is not in the Go module cache (%s): run (cd tests/upstream && go mod download)", module, why)
	}
	return info.Dir, nil
}
