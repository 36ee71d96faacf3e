// Package floor reads what nestor's prod preview needs the cheapest way the
// API server allows ("the floor" of the benchmark, the cost of the API server
// alone): every list whole and at once, protobuf for built-in types,
// metadata-only where only names are needed, nothing decoded but the paging
// token. It is kept apart from package bench so the floor binary links no
// Kubernetes API types.
package floor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// UserAgent is the user agent of the floor's requests, so the audit log
// tells them from nestor's ("nestor/…") and kubectl's ("kubectl/…").
var UserAgent = "nestor-floor/v1"

// Accept headers of the floor: protobuf for built-in types; metadata-only
// (PartialObjectMetadataList, protobuf when the server offers it, else JSON)
// where only names are needed — the same negotiation client-go's metadata
// client does.
const (
	acceptProtobuf = "application/vnd.kubernetes.protobuf"
	acceptMetadata = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," +
		"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
)

// List is one list the floor reads.
type List struct {
	// Name labels the list in results ("nodes").
	Name string
	// Path is the collection's URL path ("/api/v1/nodes").
	Path   string
	Accept string
}

// Lists are every read nestor's prod preview needs, each whole and
// cluster-wide: nodes, StorageClasses and the three workload kinds as
// protobuf; namespaces and CRDs metadata-only.
var Lists = []List{
	{"nodes", "/api/v1/nodes", acceptProtobuf},
	{"namespaces", "/api/v1/namespaces", acceptMetadata},
	{"customresourcedefinitions", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", acceptMetadata},
	{"storageclasses", "/apis/storage.k8s.io/v1/storageclasses", acceptProtobuf},
	{"deployments", "/apis/apps/v1/deployments", acceptProtobuf},
	{"daemonsets", "/apis/apps/v1/daemonsets", acceptProtobuf},
	{"statefulsets", "/apis/apps/v1/statefulsets", acceptProtobuf},
}

// PageSize is the limit of every floor list request (nestor's too).
const PageSize = 500

// Result counts what the floor read: items per list, requests and
// response bytes.
type Result struct {
	Items    map[string]int `json:"items"`
	Requests int            `json:"requests"`
	Bytes    int64          `json:"bytes"`
}

// Read reads GET /version and every list of Lists from the API server
// at host (https://HOST:PORT) through hc, all at once, each followed page by
// page (limit PageSize, continue), with user agent UserAgent. It
// decodes nothing but what paging needs: the continue token and the item
// count, read straight from the protobuf wire format (or, for a JSON answer,
// from metadata.continue). It returns the counts, or the first error (a
// non-200 answer quotes the start of its body).
func Read(ctx context.Context, hc *http.Client, host string) (Result, error) {
	res := Result{Items: map[string]int{}}
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	record := func(name string, items, reqs int, n int64, err error) {
		mu.Lock()
		defer mu.Unlock()
		if name != "" {
			res.Items[name] = items
		}
		res.Requests += reqs
		res.Bytes += n
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		var buf bytes.Buffer
		_, err := get(ctx, hc, host+"/version", "application/json", &buf)
		record("", 0, 1, int64(buf.Len()), err)
	}()
	for _, l := range Lists {
		wg.Add(1)
		go func() {
			defer wg.Done()
			items, reqs, n, err := floorList(ctx, hc, host, l)
			record(l.Name, items, reqs, n, err)
		}()
	}
	wg.Wait()
	return res, firstErr
}

// floorList follows one list to its last page.
func floorList(ctx context.Context, hc *http.Client, host string, l List) (items, reqs int, n int64, err error) {
	var buf bytes.Buffer
	cont := ""
	for {
		q := url.Values{"limit": {fmt.Sprint(PageSize)}}
		if cont != "" {
			q.Set("continue", cont)
		}
		buf.Reset()
		ct, err := get(ctx, hc, host+l.Path+"?"+q.Encode(), l.Accept, &buf)
		reqs++
		n += int64(buf.Len())
		if err != nil {
			return items, reqs, n, fmt.Errorf("%s: %w", l.Name, err)
		}
		var count int
		if mt, _, _ := mime.ParseMediaType(ct); mt == acceptProtobuf {
			count, cont, err = scanProtobufList(buf.Bytes())
		} else {
			count, cont, err = scanJSONList(buf.Bytes())
		}
		if err != nil {
			return items, reqs, n, fmt.Errorf("%s: %w", l.Name, err)
		}
		items += count
		if cont == "" {
			return items, reqs, n, nil
		}
	}
}

// get sends one GET and copies a 200 answer's body into buf; it returns the
// answer's Content-Type.
func get(ctx context.Context, hc *http.Client, u, accept string, buf *bytes.Buffer) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", UserAgent)
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		b := buf.Bytes()
		if len(b) > 300 {
			b = b[:300]
		}
		return "", fmt.Errorf("GET %s: HTTP %d: %s", strings.SplitN(u, "?", 2)[0], resp.StatusCode, b)
	}
	return resp.Header.Get("Content-Type"), nil
}

// protobufMagic starts every Kubernetes protobuf answer (the runtime.Unknown
// envelope, k8s.io/apimachinery/pkg/runtime/serializer/protobuf).
var protobufMagic = []byte("k8s\x00")

// scanProtobufList reads a Kubernetes protobuf list answer without decoding
// its items: runtime.Unknown field 2 (raw) holds the List, whose field 1 is
// ListMeta (field 3: continue) and whose field 2 repeats once per item.
func scanProtobufList(b []byte) (items int, cont string, err error) {
	if !bytes.HasPrefix(b, protobufMagic) {
		return 0, "", fmt.Errorf("not a Kubernetes protobuf answer")
	}
	raw, ok := field(b[len(protobufMagic):], 2)
	if !ok {
		return 0, "", fmt.Errorf("protobuf answer without raw object")
	}
	for len(raw) > 0 {
		num, typ, n := protowire.ConsumeTag(raw)
		if n < 0 {
			return 0, "", protowire.ParseError(n)
		}
		raw = raw[n:]
		if typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(raw)
			if m < 0 {
				return 0, "", protowire.ParseError(m)
			}
			switch num {
			case 1:
				if c, ok := field(v, 3); ok {
					cont = string(c)
				}
			case 2:
				items++
			}
			raw = raw[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, raw)
		if m < 0 {
			return 0, "", protowire.ParseError(m)
		}
		raw = raw[m:]
	}
	return items, cont, nil
}

// field returns the first length-delimited field num of message b.
func field(b []byte, num protowire.Number) ([]byte, bool) {
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return nil, false
		}
		b = b[l:]
		if typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return nil, false
			}
			if n == num {
				return v, true
			}
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(n, typ, b)
		if m < 0 {
			return nil, false
		}
		b = b[m:]
	}
	return nil, false
}

// scanJSONList reads metadata.continue and the number of items of a JSON
// list answer; items are skipped, not decoded into objects.
func scanJSONList(b []byte) (int, string, error) {
	var l struct {
		Metadata struct {
			Continue string `json:"continue"`
		} `json:"metadata"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return 0, "", fmt.Errorf("JSON list answer: %w", err)
	}
	return len(l.Items), l.Metadata.Continue, nil
}
