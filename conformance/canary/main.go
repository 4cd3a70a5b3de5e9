// Command canary runs the live conformance suite against each agent's
// newest release and says what changed: the versions, the scenario table,
// and every line type, field, hook event and registry status the captured
// runs hold that the known set (known.json, from the pinned releases)
// lacks. Green, with -raise, it raises the pins in conformance/agents/
// agents.json and adds what the new releases write to known.json, for you
// to review and commit. CI runs the pins only: a new release never fails an
// unrelated change.
//
//	go run ./conformance/canary              # newest releases; report in $TMPDIR/logwatch-canary
//	go run ./conformance/canary -raise       # and raise the pins when green
//	go run ./conformance/canary -pins        # the pinned releases: must show no drift
//	go run ./conformance/canary -scan DIR    # only the drift of captures already made
//	go run ./conformance/canary -scan DIR -raise   # and add them to the known set
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/parsers"
	_ "github.com/logwatch/logwatch/parsers/all"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "canary:", err)
		os.Exit(1)
	}
}

// errRed is a run whose suite failed or whose drift needs a look.
var errRed = errors.New("not green")

type options struct {
	pins, raise bool
	out, known  string
	scan        string
	run         string
	only        []string
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("canary", flag.ContinueOnError)
	var o options
	fs.BoolVar(&o.pins, "pins", false, "run the pinned releases instead of the newest (the known set's own check: no drift)")
	fs.BoolVar(&o.raise, "raise", false, "when the suite is green, raise the pins and add the new releases' catalogue to the known set")
	fs.StringVar(&o.out, "out", filepath.Join(os.TempDir(), "logwatch-canary"), "where the installs' captures and the report go")
	fs.StringVar(&o.known, "known", filepath.Join(repoDir(), "conformance", "canary", "known.json"), "the known set")
	fs.StringVar(&o.scan, "scan", "", "only scan captures under this directory against the known set (no install, no run; with -raise, add them to it)")
	fs.StringVar(&o.run, "run", "", "run only the conformance tests matching this (go test -run)")
	agentList := fs.String("agent", "", "comma-separated agents (default: every pinned one)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *agentList != "" {
		o.only = strings.Split(*agentList, ",")
	}
	known, err := ReadCatalogue(o.known)
	if err != nil {
		return err
	}
	if o.scan != "" {
		s := NewScan()
		if err := s.Dir(o.scan); err != nil {
			return err
		}
		drift := s.Against(known)
		writeDrift(stdout, drift)
		if o.raise {
			// Captures of a green run (of the pins, say) become known.
			known.Merge(s.Cat)
			if err := known.Write(o.known); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "added the captures' catalogue to %s: review and commit it\n", o.known)
			return nil
		}
		if len(drift) > 0 {
			return errRed
		}
		return nil
	}

	pins := agents.Pinned()
	var vs []version
	for _, a := range pins {
		if len(o.only) > 0 && !slices.Contains(o.only, a.Name) {
			continue
		}
		v := version{Agent: a, Pinned: a.Version, Want: a.Version}
		if !o.pins {
			latest, err := npmLatest(a.Packages[0])
			if err != nil {
				return err
			}
			v.Want = latest
		}
		vs = append(vs, v)
	}
	if len(vs) == 0 {
		return errors.New("no agent to run")
	}
	prefix := filepath.Join(o.out, "agents")
	if err := install(prefix, vs, stdout); err != nil {
		return err
	}
	art := filepath.Join(o.out, "artifacts")
	os.RemoveAll(art)
	results, suiteErr := suite(prefix, art, o, vs, stdout)
	s := NewScan()
	if err := s.Dir(art); err != nil {
		return err
	}
	drift := s.Against(known)

	var rep bytes.Buffer
	report(&rep, vs, results, drift)
	if err := os.WriteFile(filepath.Join(o.out, "report.md"), rep.Bytes(), 0o644); err != nil {
		return err
	}
	stdout.Write(rep.Bytes())
	fmt.Fprintf(stdout, "\nreport: %s\n", filepath.Join(o.out, "report.md"))

	green := suiteErr == nil && !slices.ContainsFunc(results, func(r result) bool { return r.Result == "fail" })
	switch {
	case !green:
		return fmt.Errorf("%w: the suite failed on %s", errRed, versionsLine(vs))
	case o.raise:
		if err := raisePins(filepath.Join(repoDir(), "conformance", "agents", "agents.json"), vs); err != nil {
			return err
		}
		known.Merge(s.Cat)
		if err := known.Write(o.known); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "raised the pins to %s and added their catalogue to %s: review and commit both\n", versionsLine(vs), o.known)
	case len(drift) > 0:
		fmt.Fprintf(stdout, "green, with drift: read it, then run again with -raise\n")
	}
	return nil
}

// version is one agent: its pin and the release this run installs.
type version struct {
	Agent          agents.Agent
	Pinned, Want   string
	Installed, Bin string
}

func versionsLine(vs []version) string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Agent.Name+" "+v.Want)
	}
	return strings.Join(out, ", ")
}

// repoDir is the module root (the canary runs with go run from it).
func repoDir() string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		wd, _ := os.Getwd()
		return wd
	}
	return filepath.Dir(string(bytes.TrimSpace(out)))
}

// pkgName is an npm package spec without its version ("@scope/x@1.2" → "@scope/x").
func pkgName(spec string) string {
	if i := strings.LastIndex(spec, "@"); i > 0 {
		return spec[:i]
	}
	return spec
}

func npmLatest(spec string) (string, error) {
	out, err := exec.Command("npm", "view", pkgName(spec), "version").Output()
	if err != nil {
		return "", fmt.Errorf("npm view %s version: %w", pkgName(spec), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// install puts every wanted release into one npm prefix (the suite's
// LOGWATCH_AGENTS_DIR), unless it is there already.
func install(prefix string, vs []version, w io.Writer) error {
	var want []string
	for i := range vs {
		v := &vs[i]
		v.Bin = v.Agent.BinPath(prefix)
		if got := binVersion(v.Bin); strings.Contains(got, v.Want) {
			v.Installed = v.Want
			continue
		}
		// The agent's own package at the wanted release; what it runs on
		// (omp: bun) as pinned.
		for j, p := range v.Agent.Packages {
			if j == 0 {
				p = pkgName(p) + "@" + v.Want
			}
			want = append(want, p)
		}
	}
	if len(want) > 0 {
		fmt.Fprintf(w, "canary: npm install --prefix %s %s\n", prefix, strings.Join(want, " "))
		cmd := exec.Command("npm", append([]string{"install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error"}, want...)...)
		cmd.Stdout, cmd.Stderr = w, w
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("npm install: %w", err)
		}
	}
	for i := range vs {
		v := &vs[i]
		got := binVersion(v.Bin)
		if !strings.Contains(got, v.Want) {
			return fmt.Errorf("%s: want %s, %s says %q", v.Agent.Name, v.Want, v.Bin, got)
		}
		v.Installed = v.Want
	}
	return nil
}

func binVersion(bin string) string {
	cmd := exec.Command(bin, "--version")
	// A script for a runtime installed beside it (omp: bun) finds it.
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, _ := cmd.CombinedOutput()
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line)
}

// result is one conformance test's outcome.
type result struct {
	Test, Agent, Result string
	Elapsed             float64
	Output              []string // a failure's last lines
}

// suite runs the live conformance suite against the prefix's agents,
// keeping every scenario's files (their recordings are what the drift
// scan reads).
func suite(prefix, art string, o options, vs []version, w io.Writer) ([]result, error) {
	args := []string{"test", "-json", "-count=1", "-p", "1", "-timeout", "60m"}
	if o.run != "" {
		args = append(args, "-run", o.run)
	} else if len(o.only) > 0 {
		var rs []string
		for _, a := range o.only {
			rs = append(rs, "Test"+strings.ToUpper(a[:1])+a[1:])
		}
		args = append(args, "-run", "^("+strings.Join(rs, "|")+")")
	}
	args = append(args, "./conformance/...")
	cmd := exec.Command("go", args...)
	cmd.Dir = repoDir()
	cmd.Env = append(os.Environ(), "CI=true", agents.EnvDir+"="+prefix, "LOGWATCH_CONFORMANCE_ARTIFACTS="+art)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = w
	fmt.Fprintf(w, "canary: go %s (%s)\n", strings.Join(args, " "), versionsLine(vs))
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	results := readTestJSON(out, w)
	return results, cmd.Wait()
}

// readTestJSON folds go test -json output into one result per test,
// printing a progress line per finished test.
func readTestJSON(r io.Reader, w io.Writer) []result {
	byTest := map[string]*result{}
	var order []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			Action, Test, Output string
			Elapsed              float64
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Test == "" {
			continue
		}
		res := byTest[ev.Test]
		if res == nil {
			res = &result{Test: ev.Test, Agent: agentOf(ev.Test)}
			byTest[ev.Test] = res
			order = append(order, ev.Test)
		}
		switch ev.Action {
		case "output":
			res.Output = append(res.Output, strings.TrimRight(ev.Output, "\n"))
			if len(res.Output) > 12 {
				res.Output = res.Output[len(res.Output)-12:]
			}
		case "pass", "fail", "skip":
			res.Result, res.Elapsed = ev.Action, ev.Elapsed
			if !strings.Contains(ev.Test, "/") {
				fmt.Fprintf(w, "canary: %-4s %s (%.0fs)\n", ev.Action, ev.Test, ev.Elapsed)
			}
		}
	}
	var out []result
	for _, t := range order {
		out = append(out, *byTest[t])
	}
	return out
}

// agentOf names the agent a conformance test drives from its name
// (TestClaudeNoHooks → claude): the first registered agent whose name
// starts it.
func agentOf(test string) string {
	name := strings.ToLower(strings.TrimPrefix(test, "Test"))
	for _, s := range parsers.All() {
		if strings.HasPrefix(name, string(s.Name)) {
			return string(s.Name)
		}
	}
	return ""
}

func report(w io.Writer, vs []version, results []result, drift []Drift) {
	fmt.Fprintf(w, "# Canary %s\n\n| agent | pinned | this run |\n|---|---|---|\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	for _, v := range vs {
		fmt.Fprintf(w, "| %s | %s | %s |\n", v.Agent.Name, v.Pinned, v.Installed)
	}
	fmt.Fprintf(w, "\n## Scenarios\n\n| agent | scenario | result | seconds |\n|---|---|---|---|\n")
	n := map[string]int{}
	for _, r := range results {
		fmt.Fprintf(w, "| %s | %s | %s | %.1f |\n", r.Agent, r.Test, r.Result, r.Elapsed)
		n[r.Result]++
	}
	fmt.Fprintf(w, "\n%d passed, %d failed, %d skipped\n", n["pass"], n["fail"], n["skip"])
	for _, r := range results {
		if r.Result == "fail" {
			fmt.Fprintf(w, "\n### %s\n\n```\n%s\n```\n", r.Test, strings.Join(r.Output, "\n"))
		}
	}
	fmt.Fprintf(w, "\n## Drift\n\n")
	writeDrift(w, drift)
}

func writeDrift(w io.Writer, drift []Drift) {
	if len(drift) == 0 {
		fmt.Fprintf(w, "none: every line type, field, hook event and registry status is in the known set\n")
		return
	}
	fmt.Fprintf(w, "| agent | what | name | count | example |\n|---|---|---|---|---|\n")
	for _, d := range drift {
		fmt.Fprintf(w, "| %s | %s | `%s` | %d | `%s` |\n", d.Agent, d.What, d.Name, d.Count, strings.ReplaceAll(d.Example, "|", `\|`))
	}
}

// raisePins rewrites the pinned versions in agents.json in place, so the
// diff is the versions alone.
func raisePins(path string, vs []version) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	for _, v := range vs {
		if v.Pinned == v.Installed {
			continue
		}
		block := regexp.MustCompile(`("name": "` + regexp.QuoteMeta(v.Agent.Name) + `",\s*"version": ")` + regexp.QuoteMeta(v.Pinned) + `"`)
		if !block.MatchString(s) {
			return fmt.Errorf("%s: no version line for %s", path, v.Agent.Name)
		}
		s = block.ReplaceAllString(s, "${1}"+v.Installed+`"`)
		p := v.Agent.Packages[0] // the agent's own; the rest are its runtime's
		s = strings.ReplaceAll(s, `"`+p+`"`, `"`+pkgName(p)+"@"+v.Installed+`"`)
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
