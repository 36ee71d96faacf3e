package app

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// docsRoot is the command tree as an operator's nestor has it, for the
// documents drawn from it (man pages, completion scripts): the default
// completion and help commands included, as Execute would add them.
func docsRoot() *cobra.Command {
	root := newRoot(&App{})
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.DisableAutoGenTag = true
	return root
}

// ManPages writes into dir (created when missing) a man page of section 1
// for nestor and one for each of its commands that --help lists
// (nestor.1, nestor-preview.1, nestor-stack-list.1…), drawn from the
// commands' help by github.com/spf13/cobra/doc; date is the date the pages
// carry (a release passes its commit's, so that two builds of a tag make
// the same pages). It returns the files written.
func ManPages(dir string, date time.Time) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	date = date.UTC()
	header := &doc.GenManHeader{Title: "NESTOR", Section: "1", Date: &date,
		Source: "nestor " + Build().Describe(), Manual: "nestor manual"}
	if err := doc.GenManTree(docsRoot(), header, dir); err != nil {
		return nil, fmt.Errorf("writing the man pages into %s: %w", dir, err)
	}
	return filepath.Glob(filepath.Join(dir, "*.1"))
}

// Completions writes into dir (created when missing) nestor's completion
// script for each shell, named as each shell's system-wide folder
// expects it: nestor (bash-completion's completions/), _nestor (zsh's
// fpath), nestor.fish (fish's vendor_completions.d) and nestor.ps1
// (PowerShell). It returns the files written.
func Completions(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	root := docsRoot()
	var files []string
	for _, c := range []struct {
		name  string
		write func(string) error
	}{
		{"nestor", func(p string) error { return root.GenBashCompletionFileV2(p, true) }},
		{"_nestor", root.GenZshCompletionFile},
		{"nestor.fish", func(p string) error { return root.GenFishCompletionFile(p, true) }},
		{"nestor.ps1", root.GenPowerShellCompletionFileWithDesc},
	} {
		p := filepath.Join(dir, c.name)
		if err := c.write(p); err != nil {
			return nil, fmt.Errorf("writing %s: %w", p, err)
		}
		files = append(files, p)
	}
	return files, nil
}
