// Command nestor-docs writes the documents drawn from nestor's commands
// that a release ships beside the binary: the man pages and the shell
// completion scripts (app.ManPages, app.Completions). It is not part of
// the nestor binary.
//
//	go run ./cmd/nestor-docs -man DIR -completions DIR [-date RFC3339]
//
// The pages' date is -date (a release passes its commit's date, so that
// two builds of a commit make the same pages), else today.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"nestor.dev/nestor/cmd/nestor/app"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "nestor-docs:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("nestor-docs", flag.ContinueOnError)
	man := fs.String("man", "", "write the man pages (section 1) into `DIR`")
	comp := fs.String("completions", "", "write the bash, zsh, fish and PowerShell completion scripts into `DIR`")
	dateFlag := fs.String("date", "", "the man pages' date, RFC 3339 (default now)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 || (*man == "" && *comp == "") {
		return fmt.Errorf("usage: nestor-docs -man DIR -completions DIR [-date RFC3339]")
	}
	date, err := pageDate(*dateFlag)
	if err != nil {
		return err
	}
	if *man != "" {
		files, err := app.ManPages(*man, date)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "nestor-docs: %d man pages in %s\n", len(files), *man)
	}
	if *comp != "" {
		files, err := app.Completions(*comp)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "nestor-docs: %d completion scripts in %s\n", len(files), *comp)
	}
	return nil
}

// pageDate is the date of the man pages: flag (RFC 3339), else now.
func pageDate(flag string) (time.Time, error) {
	if flag == "" {
		return time.Now(), nil
	}
	t, err := time.Parse(time.RFC3339, flag)
	if err != nil {
		return time.Time{}, fmt.Errorf("-date %q: not RFC 3339 (2026-12-03T15:43:07Z): %w", flag, err)
	}
	return t, nil
}
