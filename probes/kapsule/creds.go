package kapsule

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/scaleway/scaleway-sdk-go/scw"
	"github.com/scaleway/scaleway-sdk-go/validation"
	"gopkg.in/yaml.v3"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/topology"
)

// ScalewayCredentials are the credentials and API URL a kapsule stack is
// read with. The secret key is unexported: it is never printed, and nothing
// in this package formats it into a message.
type ScalewayCredentials struct {
	// AccessKey is shown only as Masked.
	AccessKey string `json:"-"`
	secretKey string
	// Source says where the credentials came from, in words.
	Source string `json:"source"`
	// APIURL is the API nestor sends its requests to, APIURLSource the
	// rule that chose it.
	APIURL       string `json:"api_url"`
	APIURLSource string `json:"api_url_source"`
}

// Masked is the access key as nestor shows it: its first 7 characters, an
// ellipsis and its last 4 ("SCWXXXX…1234").
func (c *ScalewayCredentials) Masked() string { return MaskAccessKey(c.AccessKey) }

// MaskAccessKey masks an access key for display (see Masked); a key of 11
// characters or fewer is masked whole.
func MaskAccessKey(k string) string {
	if len(k) <= 11 {
		return strings.Repeat("X", len(k))
	}
	return k[:7] + "…" + k[len(k)-4:]
}

// redact replaces the secret key (and any 8 or more of its leading
// characters, as the SDK's HideSecretKey keeps 8) in s, for every message
// that carries text nestor did not write itself (an API error message).
func (c *ScalewayCredentials) redact(s string) string {
	if c == nil || c.secretKey == "" {
		return s
	}
	sk := strings.TrimSpace(c.secretKey)
	for _, v := range []string{c.secretKey, sk} {
		if v != "" {
			s = strings.ReplaceAll(s, v, "REDACTED")
		}
	}
	if len(sk) >= 8 {
		s = strings.ReplaceAll(s, sk[:8], "REDACTED")
	}
	return s
}

// Environment variables nestor reads for Scaleway (the SDK's names, scw/env.go).
const (
	envSCWAccessKey  = "SCW_ACCESS_KEY"
	envSCWSecretKey  = "SCW_SECRET_KEY"
	envSCWProfile    = "SCW_PROFILE"
	envSCWConfigPath = "SCW_CONFIG_PATH"
	envSCWAPIURL     = "SCW_API_URL"
)

// legacyCredentialVars are the deprecated variables the SDK still honours
// (scaleway-sdk-go scw/env.go: SCALEWAY_ACCESS_KEY is "used both as access
// key and secret key", SCALEWAY_TOKEN and SCW_TOKEN as the secret key).
// nestor refuses them: they can put the secret where an access key is
// expected, and an access key is shown.
var legacyCredentialVars = []struct{ name, modern string }{
	{"SCALEWAY_ACCESS_KEY", "SCW_ACCESS_KEY and SCW_SECRET_KEY"},
	{"SCALEWAY_TOKEN", "SCW_SECRET_KEY"},
	{"SCW_TOKEN", "SCW_SECRET_KEY"},
}

// ScalewayCredentialsError is a refusal of the credentials or API URL; its
// text never contains the secret key, whole or in part. Missing is true
// when no credentials are set anywhere (not exported, no scw config file):
// the stack is fine, there is nothing to read it with
// (probes.NothingToRead).
type ScalewayCredentialsError struct {
	Msg     string
	Missing bool
}

func (e *ScalewayCredentialsError) Error() string { return e.Msg }

// NothingToRead is true when no credentials are set anywhere.
func (e *ScalewayCredentialsError) NothingToRead() bool { return e.Missing }

// missingCreds is the error of credentials set nowhere.
func missingCreds(format string, args ...any) error {
	return &ScalewayCredentialsError{Msg: fmt.Sprintf(format, args...), Missing: true}
}

func credErr(format string, args ...any) error {
	return &ScalewayCredentialsError{Msg: fmt.Sprintf(format, args...)}
}

// ResolveScalewayCredentials decides the credentials and the API URL of the
// kapsule stack t, reading the environment through env and the home folder
// through home only. Credentials, first that is set wins:
//
//  1. SCW_ACCESS_KEY and SCW_SECRET_KEY exported (both; one alone is an
//     error), or SCW_PROFILE exported naming a profile of the config file;
//  2. the topology's scaleway.profile;
//  3. the config file's active_profile, else its root profile.
//
// The config file is $SCW_CONFIG_PATH, else $XDG_CONFIG_HOME/scw/config.yaml,
// else HOME/.config/scw/config.yaml (config.yml when config.yaml does not
// exist, as the SDK's LoadConfig does). nestor reads it itself with yaml.v3
// into the SDK's scw.Config (the SDK's loader prints a warning on stdout for
// a file that is not 0600). A named profile is merged over the root profile
// (scw.MergeProfiles, as the SDK does).
//
// The API URL is SCW_API_URL when exported, else scaleway.api_url, else the
// profile's api_url, else the default; any URL other than the default or
// scaleway.api_url is refused before any request (a credential goes only to
// an API the topology declares).
//
// Errors (*ScalewayCredentialsError; never the secret key, whole or in
// part): a legacy variable (SCALEWAY_ACCESS_KEY, SCALEWAY_TOKEN, SCW_TOKEN)
// set without the modern pair; one of the pair alone; a profile that does
// not exist; a config file that cannot be read or parsed; no credentials
// anywhere; an access key that is not one (SCW and 17 characters) or a
// secret key that is not a UUID (saying when they look swapped or carry a
// carriage return or spaces); an undeclared API URL.
func ResolveScalewayCredentials(t *topology.Topology, env probes.Env, home string) (*ScalewayCredentials, error) {
	get := func(k string) string {
		if env == nil {
			return ""
		}
		v, _ := env(k)
		return v
	}
	sc := t.Scaleway
	if sc == nil {
		sc = &topology.Scaleway{}
	}
	c := &ScalewayCredentials{}
	var profile *scw.Profile
	ak, sk := get(envSCWAccessKey), get(envSCWSecretKey)
	switch {
	case ak != "" && sk != "":
		c.AccessKey, c.secretKey = ak, sk
		c.Source = "SCW_ACCESS_KEY and SCW_SECRET_KEY in the environment"
	case ak != "" || sk != "":
		set, unset := envSCWAccessKey, envSCWSecretKey
		if ak == "" {
			set, unset = unset, set
		}
		return nil, credErr("%s is exported but %s is not: export both, or unset %s to use the scw config file", set, unset, set)
	default:
		for _, l := range legacyCredentialVars {
			if get(l.name) != "" {
				return nil, credErr("%s is exported: nestor does not read this legacy variable (it can hold the secret key where an access key is expected); export %s instead, or unset %s to use the scw config file", l.name, l.modern, l.name)
			}
		}
		cfg, path, err := loadScwConfig(get, home)
		if err != nil {
			return nil, err
		}
		var name, how string
		switch {
		case get(envSCWProfile) != "":
			name, how = get(envSCWProfile), "SCW_PROFILE in the environment"
		case sc.Profile != "":
			name, how = sc.Profile, "scaleway.profile in "+t.Path
		case cfg.ActiveProfile != nil && *cfg.ActiveProfile != "":
			name, how = *cfg.ActiveProfile, "the active profile"
		default:
			name, how = scw.DefaultProfileName, "the root profile"
		}
		if name == scw.DefaultProfileName {
			profile = &cfg.Profile
		} else {
			p, ok := cfg.Profiles[name]
			if !ok || p == nil {
				return nil, credErr("profile %q (%s) is not in %s (profiles: %s)", name, how, path, probes.KeyList(cfg.Profiles))
			}
			profile = scw.MergeProfiles(&cfg.Profile, p)
		}
		if profile.AccessKey == nil || profile.SecretKey == nil || *profile.AccessKey == "" || *profile.SecretKey == "" {
			return nil, credErr("profile %q (%s) of %s has no access_key and secret_key: run `scw init`, or export SCW_ACCESS_KEY and SCW_SECRET_KEY", name, how, path)
		}
		c.AccessKey, c.secretKey = *profile.AccessKey, *profile.SecretKey
		c.Source = fmt.Sprintf("profile %s (%s) of %s", name, how, path)
	}
	if err := checkKeys(c.AccessKey, c.secretKey, c.Source); err != nil {
		return nil, err
	}
	if err := c.chooseAPIURL(t, sc, get(envSCWAPIURL), profile); err != nil {
		return nil, err
	}
	return c, nil
}

// checkKeys validates the pair with the SDK's own rules
// (validation.IsAccessKey, IsSecretKey) before the SDK sees them, so its
// errors, which quote the rejected value, never happen.
func checkKeys(ak, sk, source string) error {
	if validation.IsAccessKey(ak) && validation.IsSecretKey(sk) {
		return nil
	}
	if validation.IsSecretKey(strings.TrimSpace(ak)) && validation.IsAccessKey(strings.TrimSpace(sk)) {
		return credErr("the access key and the secret key from %s look swapped (the access key holds a UUID, the secret key an SCW… key): exchange them", source)
	}
	if !validation.IsAccessKey(ak) {
		if validation.IsAccessKey(strings.TrimSpace(ak)) {
			return credErr("the access key from %s has a carriage return, a newline or spaces around it: remove them", source)
		}
		if validation.IsSecretKey(strings.TrimSpace(ak)) {
			return credErr("the access key from %s is a UUID, which is how a secret key looks: is the secret key where the access key belongs?", source)
		}
		return credErr("the access key from %s is not an access key (SCW followed by 17 letters or digits)", source)
	}
	if validation.IsSecretKey(strings.TrimSpace(sk)) {
		return credErr("the secret key from %s has a carriage return, a newline or spaces around it (a file with Windows line endings?): remove them", source)
	}
	return credErr("the secret key from %s is not a secret key (a UUID)", source)
}

// chooseAPIURL sets the API URL by the rules of ResolveScalewayCredentials.
func (c *ScalewayCredentials) chooseAPIURL(t *topology.Topology, sc *topology.Scaleway, env string, profile *scw.Profile) error {
	switch {
	case env != "":
		c.APIURL, c.APIURLSource = env, "SCW_API_URL in the environment"
	case sc.APIURL != "":
		c.APIURL, c.APIURLSource = sc.APIURL, "scaleway.api_url in "+t.Path
	case profile != nil && profile.APIURL != nil && *profile.APIURL != "":
		c.APIURL, c.APIURLSource = *profile.APIURL, "api_url of the scw profile"
	default:
		c.APIURL, c.APIURLSource = topology.DefaultScalewayAPIURL, "the default"
	}
	got, err := apiURLKey(c.APIURL)
	if err != nil {
		return credErr("the API URL from %s: %v", c.APIURLSource, err)
	}
	allowed := []string{topology.DefaultScalewayAPIURL}
	if sc.APIURL != "" {
		allowed = append(allowed, sc.APIURL)
	}
	for _, a := range allowed {
		if k, err := apiURLKey(a); err == nil && k == got {
			return nil
		}
	}
	declared := "declares no scaleway.api_url"
	if sc.APIURL != "" {
		declared = "declares scaleway.api_url: " + sc.APIURL
	}
	fix := "declare it as scaleway.api_url in " + t.Path + " if it is meant"
	if c.APIURLSource == "SCW_API_URL in the environment" {
		fix = "unset SCW_API_URL, or " + fix
	}
	return credErr("refusing: the API URL %s (from %s) is neither %s nor the topology's (%s %s); nestor sends its credentials only to a declared API, and nothing was sent. %s",
		topology.RedactUserInfo(c.APIURL), c.APIURLSource, topology.DefaultScalewayAPIURL, t.Path, declared, fix)
}

// apiURLKey is the form API URLs are compared in: scheme://host:port
// (probes.HostKey), after topology.CheckAPIURL.
func apiURLKey(s string) (string, error) {
	if err := topology.CheckAPIURL(s); err != nil {
		return "", err
	}
	u, _ := url.Parse(s)
	return probes.HostKey(u), nil
}

// loadScwConfig reads the scw config file (see ResolveScalewayCredentials
// for where), returning it and its path. A missing file is an error saying
// what was looked for.
func loadScwConfig(get func(string) string, home string) (*scw.Config, string, error) {
	var paths []string
	switch {
	case get(envSCWConfigPath) != "":
		p, err := topology.ExpandHome(get(envSCWConfigPath), home, "", "SCW_CONFIG_PATH")
		if err != nil {
			return nil, "", err
		}
		paths = []string{p}
	case get("XDG_CONFIG_HOME") != "":
		d := filepath.Join(get("XDG_CONFIG_HOME"), "scw")
		paths = []string{filepath.Join(d, "config.yaml"), filepath.Join(d, "config.yml")}
	case home != "":
		d := filepath.Join(home, ".config", "scw")
		paths = []string{filepath.Join(d, "config.yaml"), filepath.Join(d, "config.yml")}
	default:
		return nil, "", missingCreds("no Scaleway credentials: SCW_ACCESS_KEY and SCW_SECRET_KEY are not exported, and HOME is not set to find the scw config file")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) && get(envSCWConfigPath) != "" {
			// SCW_CONFIG_PATH names the file to read, and nestor reads
			// that one only: `scw init` would write another.
			return nil, "", credErr("SCW_CONFIG_PATH names %s, which does not exist: point SCW_CONFIG_PATH at the scw config file, unset it, or export SCW_ACCESS_KEY and SCW_SECRET_KEY", p)
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, "", credErr("the scw config file %s cannot be read: %v", p, unwrapPath(err))
		}
		var cfg scw.Config
		if err := yaml.Unmarshal(data, &cfg); err != nil {
			// yaml.v3 quotes the offending value between backquotes: drop
			// it, it may be a key.
			msg := quotedRE.ReplaceAllString(firstLine(err.Error()), "a value")
			return nil, "", credErr("the scw config file %s is not valid YAML: %s", p, msg)
		}
		return &cfg, p, nil
	}
	return nil, "", missingCreds("no Scaleway credentials: SCW_ACCESS_KEY and SCW_SECRET_KEY are not exported and there is no scw config file (%s); run `scw init`, or export them", strings.Join(paths, ", "))
}

var quotedRE = regexp.MustCompile("`[^`]*`")

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
