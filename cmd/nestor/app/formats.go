package app

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/cmd/nestor/formats"
	"nestor.dev/nestor/kube"
)

// documentFormats are the machine formats drawn from action.Documents
// (preview and fleet): CI and cron outputs, and the calendar (ics).
var documentFormats = []string{"sarif", "junit", "prometheus", "markdown", "ics"}

// document reports whether format is one of documentFormats.
func document(format string) bool { return slices.Contains(documentFormats, format) }

// writeDocument writes d in format (one of documentFormats), the read
// having finished at readAt.
func writeDocument(w io.Writer, format string, d action.Documents, readAt time.Time) error {
	switch format {
	case "sarif":
		b := Build()
		return formats.WriteSARIF(w, d, formats.SARIFOptions{ToolVersion: b.Describe(), ToolSemanticVersion: b.SemanticVersion(), InformationURI: ProjectURL, RunbookURI: b.RunbookURL})
	case "junit":
		return formats.WriteJUnit(w, d, formats.JUnitOptions{ReadAt: readAt})
	case "prometheus":
		return formats.WritePrometheus(w, d, formats.PrometheusOptions{ReadAt: readAt})
	case "markdown":
		return formats.WriteMarkdown(w, d)
	case "ics":
		return formats.WriteICS(w, d, formats.ICSOptions{Stamp: readAt})
	}
	return fmt.Errorf("-o %s: not a document format", format)
}

// registerFile registers --output-file FILE beside -o.
func (f *outputFlag) registerFile(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.file, "output-file", "", "write the -o output to FILE (atomically: a reader sees the old file or the new one) instead of stdout; machine formats only")
}

// checkFile refuses --output-file with a format for people (text), and
// one whose folder does not exist, before anything is read.
func (f *outputFlag) checkFile() error {
	if f.file != "" && !f.machine() {
		return fmt.Errorf("--output-file writes a machine format: add -o json, yaml, %s", kube.JoinOr(documentFormats))
	}
	if f.file != "" {
		if err := action.CheckFolder(f.file); err != nil {
			return fmt.Errorf("--output-file: %w", err)
		}
	}
	return nil
}

// emit writes v in the chosen format (see write) to stdout, or to
// --output-file through a temporary file renamed over it.
func (f *outputFlag) emit(a *App, v any, text func(io.Writer) error) error {
	if f.file == "" {
		return write(a.Out, f.value, v, text)
	}
	var b bytes.Buffer
	if err := write(&b, f.value, v, text); err != nil {
		return err
	}
	if err := action.WriteFile(f.file, b.Bytes()); err != nil {
		return fmt.Errorf("--output-file: %w", err)
	}
	return nil
}

// emitFailure writes, for a machine format, the document of a command
// that made no report (a SARIF run that did not succeed, a JUnit error,
// nestor_read_success 0, the JSON or YAML error document), so CI and cron
// always get a valid file; the error itself is still printed and sets the
// exit code. The text format writes nothing.
//
// An interrupted command (Ctrl-C, SIGTERM) writes nothing to --output-file:
// the file a scraper or a CI step reads keeps its previous report, which
// was true when written, rather than a document that says only "interrupted"
// and drops every stack that was read.
func (f *outputFlag) emitFailure(a *App, fail *action.Failure) error {
	if !document(f.value) && !f.machine() {
		return nil
	}
	if f.file != "" && fail.Outcome == action.OutcomeInterrupted {
		return nil
	}
	return f.emit(a, fail, nil)
}
