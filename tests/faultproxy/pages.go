package faultproxy

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// maxUpstreamBody bounds an upstream answer the proxy reads whole to
// rewrite it.
const maxUpstreamBody = 64 << 20

// fetch sends r's method, path and headers upstream with query q and
// returns the answer's status, headers and body (read whole).
func (p *Proxy) fetch(r *http.Request, q url.Values) (int, http.Header, []byte, error) {
	u := *p.upstream
	u.Path = r.URL.Path
	u.RawQuery = q.Encode()
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), nil)
	if err != nil {
		return 0, nil, nil, err
	}
	for _, h := range []string{"Accept", "User-Agent"} {
		if v := r.Header.Get(h); v != "" {
			out.Header.Set(h, v)
		}
	}
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxUpstreamBody))
	return resp.StatusCode, resp.Header, body, err
}

// fetchOrFail fetches as fetch does and, on an error or an answer that is
// not 200, answers the client with it (or a 502) and returns ok false.
func (p *Proxy) fetchOrFail(w http.ResponseWriter, r *http.Request, q url.Values) ([]byte, bool) {
	code, hdr, body, err := p.fetch(r, q)
	if err != nil {
		writeStatus(w, r, p.user, http.StatusBadGateway, 0, "faultproxy: upstream: "+err.Error())
		return nil, false
	}
	if code != http.StatusOK {
		w.Header().Set("Content-Type", hdr.Get("Content-Type"))
		w.WriteHeader(code)
		_, _ = w.Write(body)
		return nil, false
	}
	return body, true
}

func writeJSONBody(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// corrupt answers 200 with a body that is no JSON, or no protobuf.
func (p *Proxy) corrupt(w http.ResponseWriter, r *http.Request, kind Kind) {
	if kind == KindInvalidProtobuf {
		// The envelope's magic (k8s.io/apimachinery runtime/serializer/
		// protobuf: "k8s\x00"), then a field tag with a truncated varint.
		body := []byte("k8s\x00\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff")
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
		return
	}
	body, ok := p.fetchOrFail(w, r, r.URL.Query())
	if !ok {
		return
	}
	writeJSONBody(w, append(body[:len(body)/2:len(body)/2], "\x00<faultproxy: the rest is no JSON>"...))
}

// object is a JSON object with its members in order (the API server
// writes kind, apiVersion, metadata first; nestor reads a Table's continue
// token before its rows).
type object []member

type member struct {
	key string
	val json.RawMessage
}

func parseObject(b []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, member{key, v})
	}
	return o, nil
}

func (o object) get(key string) json.RawMessage {
	for _, m := range o {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

func (o *object) set(key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	for i, m := range *o {
		if m.key == key {
			(*o)[i].val = raw
			return nil
		}
	}
	*o = append(*o, member{key, raw})
	return nil
}

func (o object) marshal() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// setContinue sets metadata.continue of a list or Table page (removing
// remainingItemCount, which a made-up token would contradict).
func (o *object) setContinue(token string) error {
	meta := map[string]any{}
	if raw := o.get("metadata"); raw != nil {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return err
		}
	}
	delete(meta, "remainingItemCount")
	if token == "" {
		delete(meta, "continue")
	} else {
		meta["continue"] = token
	}
	return o.set("metadata", meta)
}

// renameItems appends suffix to the name of every row of a Table (its
// first cell) or item of a list (metadata.name).
func (o *object) renameItems(suffix string) error {
	if raw := o.get("rows"); raw != nil {
		var rows []map[string]any
		if err := json.Unmarshal(raw, &rows); err != nil {
			return err
		}
		for _, row := range rows {
			if cells, _ := row["cells"].([]any); len(cells) > 0 {
				if name, ok := cells[0].(string); ok {
					cells[0] = name + suffix
				}
			}
		}
		return o.set("rows", rows)
	}
	if raw := o.get("items"); raw != nil {
		var items []map[string]any
		if err := json.Unmarshal(raw, &items); err != nil {
			return err
		}
		for _, it := range items {
			if meta, _ := it["metadata"].(map[string]any); meta != nil {
				if name, ok := meta["name"].(string); ok {
					meta["name"] = name + suffix
				}
			}
		}
		return o.set("items", items)
	}
	return nil
}

// page answers a page under RepeatToken, RepeatItems or EndlessPages (see
// their constructors). Every page is the server's first page, read again.
func (p *Proxy) page(w http.ResponseWriter, r *http.Request, kind Kind) {
	q := r.URL.Query()
	token := q.Get("continue")
	mine := strings.HasPrefix(token, tokenPrefix)
	if mine {
		q.Del("continue")
	}
	body, ok := p.fetchOrFail(w, r, q)
	if !ok {
		return
	}
	o, err := parseObject(body)
	if err != nil {
		writeStatus(w, r, p.user, http.StatusBadGateway, 0, "faultproxy: the upstream page is not a JSON object: "+err.Error())
		return
	}
	var real struct {
		Metadata struct {
			Continue string `json:"continue"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(o.get("metadata"), &real)
	var next string
	switch kind {
	case KindRepeatToken:
		next = tokenPrefix + "same"
	case KindRepeatItems:
		if mine {
			raw, _ := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(token, tokenPrefix+"dup."))
			next = string(raw) // the server's own token, or none
		} else {
			next = tokenPrefix + "dup." + base64.RawURLEncoding.EncodeToString([]byte(real.Metadata.Continue))
		}
	case KindEndlessPages:
		n := 1
		if mine {
			n, _ = strconv.Atoi(strings.TrimPrefix(token, tokenPrefix+"endless."))
			n++
		}
		if err := o.renameItems("-p" + strconv.Itoa(n)); err != nil {
			writeStatus(w, r, p.user, http.StatusBadGateway, 0, "faultproxy: rename the page's items: "+err.Error())
			return
		}
		next = tokenPrefix + "endless." + strconv.Itoa(n)
	}
	if err := o.setContinue(next); err != nil {
		writeStatus(w, r, p.user, http.StatusBadGateway, 0, "faultproxy: set the continue token: "+err.Error())
		return
	}
	writeJSONBody(w, o.marshal())
}

// hugeTable streams a Table of rows rows (see HugeTable).
func (p *Proxy) hugeTable(w http.ResponseWriter, r *http.Request, rows int) {
	if !strings.Contains(r.Header.Get("Accept"), "as=Table") {
		p.rp.ServeHTTP(w, r)
		return
	}
	q := r.URL.Query()
	q.Set("limit", "1")
	q.Del("continue")
	body, ok := p.fetchOrFail(w, r, q)
	if !ok {
		return
	}
	var t struct {
		Kind              string            `json:"kind"`
		APIVersion        string            `json:"apiVersion"`
		ColumnDefinitions []json.RawMessage `json:"columnDefinitions"`
		Rows              []struct {
			Cells []any `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(body, &t); err != nil || t.Kind != "Table" || len(t.Rows) == 0 {
		writeStatus(w, r, p.user, http.StatusBadGateway, 0, "faultproxy: no Table row to copy from the server")
		return
	}
	ipCol := -1
	for i, c := range t.ColumnDefinitions {
		var d struct{ Name string }
		_ = json.Unmarshal(c, &d)
		if strings.EqualFold(d.Name, "Internal-IP") {
			ipCol = i
		}
	}
	cols, _ := json.Marshal(t.ColumnDefinitions)
	cells := t.Rows[0].Cells
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 256<<10)
	fmt.Fprintf(bw, `{"kind":"Table","apiVersion":%q,"metadata":{"resourceVersion":"1"},"columnDefinitions":%s,"rows":[`, t.APIVersion, cols)
	for i := 0; i < rows; i++ {
		if i > 0 {
			bw.WriteByte(',')
		}
		cells[0] = fmt.Sprintf("huge-%07d", i)
		if ipCol >= 0 && ipCol < len(cells) {
			cells[ipCol] = fmt.Sprintf("10.%d.%d.%d", (i>>16)&0xff, (i>>8)&0xff, i&0xff)
		}
		row, _ := json.Marshal(map[string]any{"cells": cells, "object": nil})
		if _, err := bw.Write(row); err != nil {
			return // the client went away
		}
	}
	bw.WriteString("]}")
	_ = bw.Flush()
}
