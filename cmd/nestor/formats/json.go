// Package formats writes the models of nestor's commands (package action)
// for programs: SARIF, JUnit XML, the Prometheus exposition, GitHub's
// Markdown, iCalendar, and the fleet's JSON document written one stack at
// a time. Each writer is a function of the model, drawn from its stacks
// (action.Documents); none reads anything but the model, save SARIF, which
// finds the repository the topology files are in.
package formats

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"nestor.dev/nestor/cmd/nestor/action"
)

// WriteFleetJSON writes fleet report r as -o json writes every model (json.Encoder: HTML
// escaped, two-space indent, a final newline), byte for byte, but one stack
// at a time, so that a fleet's document — each stack's whole preview
// report — is not built whole in memory before it is written (to stdout;
// --output-file still gathers it to write the file at once). Errors: w's,
// or a stack that does not marshal, after the stacks before it were
// written: json.Encoder would have written nothing then.
func WriteFleetJSON(w io.Writer, r *action.FleetReport) error {
	if r == nil {
		_, err := io.WriteString(w, "null\n")
		return err
	}
	head := *r
	if r.Stacks != nil {
		head.Stacks = []action.FleetStack{}
	}
	compact, err := json.Marshal(head)
	if err != nil {
		return err
	}
	var doc bytes.Buffer
	if err := json.Indent(&doc, compact, "", "  "); err != nil {
		return err
	}
	if r.Stacks == nil {
		doc.WriteByte('\n')
		_, err := w.Write(doc.Bytes())
		return err
	}
	const empty = `"stacks": []`
	at := bytes.LastIndex(doc.Bytes(), []byte(empty))
	if at < 0 {
		return fmt.Errorf("fleet document: no %s in %s", empty, doc.Bytes())
	}
	open, end := doc.Bytes()[:at+len(empty)-1], doc.Bytes()[at+len(empty)-1:]
	if len(r.Stacks) == 0 {
		open = doc.Bytes()[:at+len(empty)]
		end = doc.Bytes()[at+len(empty):]
	}
	bw := bufio.NewWriter(w)
	bw.Write(open)
	for i := range r.Stacks {
		item, err := json.MarshalIndent(&r.Stacks[i], "    ", "  ")
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(item)
	}
	if len(r.Stacks) > 0 {
		bw.WriteString("\n  ")
	}
	bw.Write(end)
	bw.WriteByte('\n')
	return bw.Flush()
}
