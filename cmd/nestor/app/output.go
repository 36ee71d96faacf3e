package app

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/cmd/nestor/formats"
)

// outputFlag is -o/--output (or another format flag), rejected at parse time
// when the value is not allowed (Helm's habit).
type outputFlag struct {
	allowed []string
	value   string
	// typ names the value in --help ("format" when empty).
	typ string
	// file is --output-file (registerFile), "" for stdout.
	file string
	// alias maps a former name of a format to its name (env's "shell" is
	// "text"); aliases are accepted, not offered.
	alias map[string]string
}

// reportFormats are the formats of every command that reports: its human
// view, and its model as JSON or YAML (the same field names).
var reportFormats = []string{"text", "json", "yaml"}

func newOutputFlag(def string, allowed ...string) *outputFlag {
	return &outputFlag{allowed: allowed, value: def}
}

func (f *outputFlag) String() string { return f.value }
func (f *outputFlag) Type() string {
	if f.typ == "" {
		return "format"
	}
	return f.typ
}

// Set takes a format's name in any case (-o JSON is -o json, as kubectl's
// printers lower-case theirs): the value kept is the name as the list
// spells it. An unknown name is refused with the list.
func (f *outputFlag) Set(v string) error {
	name := strings.ToLower(v)
	if to, ok := f.alias[name]; ok {
		name = to
	}
	for _, a := range f.allowed {
		if name == a {
			f.value = a
			return nil
		}
	}
	return fmt.Errorf("unknown %s %q (one of: %s, in any case)", f.Type(), v, strings.Join(f.allowed, ", "))
}

// machine reports whether the format is for programs (json, yaml, or a
// document format: sarif, junit, prometheus, markdown, ics): such a run never
// prompts (Terraform: JSON output implies no prompts).
func (f *outputFlag) machine() bool {
	return f.value == "json" || f.value == "yaml" || document(f.value)
}

func (f *outputFlag) register(cmd *cobra.Command) {
	cmd.Flags().VarP(f, "output", "o", "output format: "+strings.Join(f.allowed, "|")+" (any case)")
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return f.allowed, cobra.ShellCompDirectiveNoFileComp
	})
}

// write is the one output writer of every command that reports: the model v
// as indented JSON (a fleet's written one stack at a time,
// formats.WriteFleetJSON: byte for byte what json.Encoder writes), as YAML
// (through its JSON form, so both carry the same field names), as a
// document format when v is action.Documents (see writeDocument), or its
// human view text.
func write(w io.Writer, format string, v any, text func(io.Writer) error) error {
	if d, ok := v.(action.Documents); ok && document(format) {
		return writeDocument(w, format, d, time.Now())
	}
	switch format {
	case "json":
		if f, ok := v.(*action.FleetReport); ok {
			return formats.WriteFleetJSON(w, f)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "yaml":
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		var generic any
		if err := json.Unmarshal(raw, &generic); err != nil {
			return err
		}
		enc := yaml.NewEncoder(w)
		enc.SetIndent(2)
		if err := enc.Encode(generic); err != nil {
			return err
		}
		return enc.Close()
	}
	return text(w)
}
