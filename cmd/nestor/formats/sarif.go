package formats

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"nestor.dev/nestor/cmd/nestor/action"
	"nestor.dev/nestor/topology"
)

// SARIFOptions are what a SARIF log says of the tool and where its files
// are.
type SARIFOptions struct {
	// ToolVersion is nestor's version (tool.driver.version), and
	// ToolSemanticVersion the same as SemVer 2.0.0
	// (tool.driver.semanticVersion; "" leaves it out).
	ToolVersion, ToolSemanticVersion string
	// InformationURI is nestor's page (tool.driver.informationUri), and
	// RunbookURI the absolute URL of RUNBOOK.md, to which each rule's
	// "#anchor" is appended (its helpUri); either may be "" (left out).
	InformationURI, RunbookURI string
	// SourceRoot is the absolute folder the topology files' URIs are
	// relative to (%SRCROOT%): the repository's root. "" finds it with
	// gitRoot from the first stack's file; a file outside it (or with no
	// root found) is written as an absolute file: URI.
	SourceRoot string
}

// SARIF 2.1.0 (OASIS, "Static Analysis Results Interchange Format Version
// 2.1.0", with errata 01) and what GitHub code scanning reads of it
// ("SARIF support for code scanning"): the properties it requires are
// always written, its limits are kept (sarifMaxResults).
const (
	sarifVersion   = "2.1.0"
	sarifSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
	srcRoot        = "%SRCROOT%"
	// sarifMaxResults is GitHub's limit of results per run (an upload
	// with more is rejected; its display keeps the first 5,000 by
	// severity): beyond it, the least severe results are left out, and a
	// notification says how many.
	sarifMaxResults = 25000
)

// WriteSARIF writes d as a SARIF 2.1.0 log of one run (see writeSARIF): a
// preview's stack (runAutomationDetails.id nestor/preview/STACK/), every
// stack of a fleet (nestor/fleet/), or a failure: a run with no result,
// executionSuccessful false and a notification saying why.
func WriteSARIF(w io.Writer, d action.Documents, o SARIFOptions) error {
	docs := d.Docs()
	id := "nestor/fleet/"
	if _, fleet := d.(*action.FleetReport); !fleet {
		id = "nestor/preview/" + docs[0].Name + "/"
	}
	return writeSARIF(w, docs, id, o)
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                   `json:"tool"`
	AutomationDetails  *sarifAutomation            `json:"automationDetails,omitempty"`
	OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
	Invocations        []sarifInvocation           `json:"invocations"`
	ColumnKind         string                      `json:"columnKind"`
	Results            []sarifResult               `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	SemanticVer    string      `json:"semanticVersion,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string        `json:"id"`
	Name                 string        `json:"name"`
	ShortDescription     sarifText     `json:"shortDescription"`
	FullDescription      sarifText     `json:"fullDescription"`
	HelpURI              string        `json:"helpUri,omitempty"`
	Help                 sarifHelp     `json:"help"`
	DefaultConfiguration sarifRuleConf `json:"defaultConfiguration"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRuleConf struct {
	Level string `json:"level"`
}

type sarifAutomation struct {
	ID string `json:"id"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Locations  []sarifLocation `json:"locations,omitempty"`
	Properties *sarifProps     `json:"properties,omitempty"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          *sarifProps       `json:"properties,omitempty"`
}

// sarifProps is the property bag nestor adds to a result or notification:
// the stack, the topology key, the stack's outcome (its status word), and
// for a part not read its reason code (topology.ReasonCode).
type sarifProps struct {
	Stack  string `json:"stack,omitempty"`
	Key    string `json:"key,omitempty"`
	Status string `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
}

type sarifLocation struct {
	Physical sarifPhysical `json:"physicalLocation"`
	Message  *sarifText    `json:"message,omitempty"`
}

type sarifPhysical struct {
	Artifact sarifArtifactLoc `json:"artifactLocation"`
	Region   *sarifRegion     `json:"region,omitempty"`
}

type sarifArtifactLoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

// writeSARIF writes docs as one SARIF run: nestor as the tool with every
// rule (Rules, each with its helpUri into RUNBOOK.md), a result per plan
// item of each stack with a report, located at the topology key it
// concerns (PlanItem.Key; lines and columns in Unicode code points,
// as yaml.v3 counts them), and for each stack without a report a
// toolExecutionNotification at the error's place, executionSuccessful then
// being false. automationID is runAutomationDetails.id (GitHub's category:
// one per stack for preview, so uploads of several stacks do not replace
// each other).
//
// Each result's partialFingerprints.primaryLocationLineHash (the one
// fingerprint GitHub reads) is a hash of the stack, the rule, the key and
// the result's rank among the results of that stack, rule and key — not of
// its message, whose numbers change from run to run, nor of its line,
// which moves when the file is edited — so a re-run does not open new
// alerts. (github/codeql-action's upload-sarif computes its own line hash
// and, when it differs from the one given, keeps the given one and logs a
// warning.)
func writeSARIF(w io.Writer, docs []action.StackDoc, automationID string, o SARIFOptions) error {
	root := o.SourceRoot
	if root == "" {
		root = sourceRoot(docs)
	}
	run := sarifRun{
		Tool:              sarifTool{Driver: sarifDriver{Name: "nestor", Version: o.ToolVersion, SemanticVer: o.ToolSemanticVersion, InformationURI: o.InformationURI, Rules: sarifRules(o.RunbookURI)}},
		AutomationDetails: &sarifAutomation{ID: automationID},
		ColumnKind:        "unicodeCodePoints",
		Results:           []sarifResult{},
	}
	if root != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{srcRoot: {URI: fileURI(root, true)}}
	}
	inv := sarifInvocation{ExecutionSuccessful: true}
	fleet := len(docs) > 1
	for _, d := range docs {
		if d.Failed() {
			// Code scanning shows results, not notifications: a stack that
			// could not be judged is an error result at its topology file,
			// and its notifications say the same to a SARIF reader.
			inv.ExecutionSuccessful = false
			notes := sarifNotifications(d, root)
			inv.Notifications = append(inv.Notifications, notes...)
			for i, n := range notes {
				if d.File == "" || len(n.Locations) == 0 {
					continue // no file to show it in: the notification says it
				}
				_, index, _ := rule(RuleNoReport)
				loc := n.Locations[0]
				if r := loc.Physical.Region; r == nil {
					loc.Physical.Region = region(1, 1, 1) // the file as a whole: its first character
				} else if r.EndColumn == 0 {
					loc.Physical.Region = region(r.StartLine, max(r.StartColumn, 1), 1)
				}
				key := topology.KeyName
				if n.Properties != nil && n.Properties.Key != "" {
					key = n.Properties.Key
				}
				run.Results = append(run.Results, sarifResult{
					RuleID: RuleNoReport, RuleIndex: index, Level: LevelError,
					Message:             n.Message,
					Locations:           []sarifLocation{loc},
					PartialFingerprints: map[string]string{"primaryLocationLineHash": fingerprint(d.Name+"\x00"+RuleNoReport+"\x00"+key, i)},
					Properties:          &sarifProps{Stack: d.Name, Key: key, Status: string(d.Outcome)},
				})
			}
			continue
		}
		rank := map[string]int{}
		for _, it := range Items(d.Report) {
			key := it.Key()
			ruleID := it.Rule()
			_, index, _ := rule(ruleID)
			id := d.Name + "\x00" + ruleID + "\x00" + key
			n := rank[id]
			rank[id]++
			msg := it.Message()
			if fleet {
				msg = d.Name + ": " + msg
			}
			res := sarifResult{
				RuleID: ruleID, RuleIndex: index, Level: it.Level(),
				Message:             sarifText{Text: msg},
				Locations:           []sarifLocation{locationOf(d, root, key)},
				PartialFingerprints: map[string]string{"primaryLocationLineHash": fingerprint(id, n)},
				Properties:          &sarifProps{Stack: d.Name, Key: key},
			}
			if it.Unknown != nil {
				res.Properties.Reason = string(it.Unknown.Code)
			}
			run.Results = append(run.Results, res)
		}
	}
	if len(run.Results) > sarifMaxResults {
		sort.SliceStable(run.Results, func(i, j int) bool { return levelRank(run.Results[i].Level) > levelRank(run.Results[j].Level) })
		left := len(run.Results) - sarifMaxResults
		run.Results = run.Results[:sarifMaxResults]
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: LevelWarning,
			Message: sarifText{Text: fmt.Sprintf("%d results left out, the least severe: GitHub code scanning rejects a run of more than %d; -o json has them all", left, sarifMaxResults)}})
	}
	run.Invocations = []sarifInvocation{inv}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: sarifSchemaURI, Version: sarifVersion, Runs: []sarifRun{run}})
}

// sarifRules is every rule as a reportingDescriptor.
func sarifRules(runbook string) []sarifRule {
	out := []sarifRule{}
	for _, ri := range FindingRules() {
		sr := sarifRule{
			ID: ri.ID, Name: ri.ID,
			ShortDescription:     sarifText{Text: ri.Short},
			FullDescription:      sarifText{Text: ri.Full},
			Help:                 sarifHelp{Text: ri.Full + " (RUNBOOK.md §9, " + ri.ID + ")"},
			DefaultConfiguration: sarifRuleConf{Level: ruleLevel(ri.ID)},
		}
		if runbook != "" {
			sr.HelpURI = runbook + "#" + ri.Anchor
			sr.Help.Markdown = ri.Full + "\n\n[RUNBOOK.md §9](" + sr.HelpURI + ")"
		}
		out = append(out, sr)
	}
	return out
}

// ruleLevel is a rule's default level: what its results are unless their
// own level says otherwise (PlanItem.Level).
func ruleLevel(id string) string {
	switch {
	case id == "step/"+string(topology.StepUndeclared), id == RuleWaiting:
		return LevelNote
	case strings.HasPrefix(id, "finding/"):
		return LevelNote
	}
	return LevelWarning
}

func levelRank(level string) int {
	switch level {
	case LevelError:
		return 3
	case LevelWarning:
		return 2
	}
	return 1
}

// fingerprint is the hex SHA-256 of id and rank n.
func fingerprint(id string, n int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("nestor/v1\x00%s\x00%d", id, n)))
	return hex.EncodeToString(sum[:16])
}

// locationOf is the location of key in stack d's file: its line, and its
// columns when the width of the key's text is known.
func locationOf(d action.StackDoc, root, key string) sarifLocation {
	loc := sarifLocation{Physical: sarifPhysical{Artifact: artifactLocation(root, d.File)}}
	if pos, _, ok := Position(d.Topology, key); ok {
		loc.Physical.Region = region(pos.Line, pos.Column, pos.Width)
		loc.Message = &sarifText{Text: key}
	}
	return loc
}

func region(line, col, width int) *sarifRegion {
	r := &sarifRegion{StartLine: line, StartColumn: col, EndLine: line}
	if width > 0 && col > 0 {
		r.EndColumn = col + width
	}
	if col <= 0 {
		r.StartColumn = 0
	}
	return r
}

// sarifNotifications says why stack d has no report: an invalid topology's
// problems, each at its line and column; any other error at the key it
// concerns (ErrorKey), or at the file.
func sarifNotifications(d action.StackDoc, root string) []sarifNotification {
	props := &sarifProps{Stack: d.Name, Status: string(d.Outcome)}
	if es := topology.AsErrors(d.Err); len(es) > 0 {
		var out []sarifNotification
		for _, e := range es {
			n := sarifNotification{Level: LevelError, Message: sarifText{Text: e.Error()}, Properties: props}
			if e.File != "" {
				file := e.File
				if abs, err := filepath.Abs(file); err == nil {
					file = abs
				}
				loc := sarifLocation{Physical: sarifPhysical{Artifact: artifactLocation(root, file)}}
				if e.Line > 0 {
					loc.Physical.Region = region(e.Line, e.Column, 0)
				}
				n.Locations = []sarifLocation{loc}
			}
			out = append(out, n)
		}
		return out
	}
	msg := string(d.Outcome) + ": " + d.Reason
	if d.Name != "" {
		msg = d.Name + ": " + msg
	}
	n := sarifNotification{Level: LevelError, Message: sarifText{Text: msg}, Properties: props}
	if d.File != "" {
		n.Locations = []sarifLocation{locationOf(d, root, ErrorKey(d.Err))}
		props.Key = ErrorKey(d.Err)
	}
	return []sarifNotification{n}
}

// sourceRoot is the folder the topology files' URIs are relative to: the
// git work tree holding the first of them (GitHub resolves URIs against
// the repository), else, outside any repository, the deepest folder that
// holds every topology file — never an absolute path of the machine that
// ran, which no other machine can open. "" when no doc has a file.
func sourceRoot(docs []action.StackDoc) string {
	var files []string
	for _, d := range docs {
		if d.File != "" {
			files = append(files, d.File)
		}
	}
	if len(files) == 0 {
		return ""
	}
	if root := gitRoot(files[0]); root != "" {
		return root
	}
	common := ""
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real // as artifactLocation resolves the file
		}
		dir := filepath.Dir(abs)
		switch {
		case common == "":
			common = dir
		default:
			for common != dir && !strings.HasPrefix(dir, common+string(filepath.Separator)) && common != filepath.Dir(common) {
				common = filepath.Dir(common)
			}
		}
	}
	return common
}

// artifactLocation is file relative to root (uriBaseId %SRCROOT%) when it
// is under root, else its absolute file: URI.
func artifactLocation(root, file string) sarifArtifactLoc {
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real // GitHub cannot show a result in a file reached through a link
	}
	if root != "" {
		if rel, err := filepath.Rel(root, file); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return sarifArtifactLoc{URI: (&url.URL{Path: filepath.ToSlash(rel)}).String(), URIBaseID: srcRoot}
		}
	}
	return sarifArtifactLoc{URI: fileURI(file, false)}
}

// fileURI is the file: URI of the absolute path p (a folder's ends in /).
func fileURI(p string, dir bool) string {
	s := filepath.ToSlash(p)
	if dir && !strings.HasSuffix(s, "/") {
		s += "/"
	}
	return (&url.URL{Scheme: "file", Path: s}).String()
}

// gitRoot returns the root of the git work tree holding path (the nearest
// folder above it, symbolic links resolved, that has a .git entry: a folder,
// or a file in a linked work tree), or "" when it is in none.
func gitRoot(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	dir := abs
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		dir = filepath.Dir(abs)
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
