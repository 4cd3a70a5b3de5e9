package selftest

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/logwatch/logwatch/internal/statusview"
	"github.com/logwatch/logwatch/internal/termsafe"
)

// WriteText prints the table (agent, version, scenario, result, time,
// what was published; a failure's reason under its row), each agent's
// result (writeAgents), then what was recorded, or what to attach to a
// report. Versions and reasons come from the agents and the daemon: each is
// escaped, one line.
func (r *Report) WriteText(w io.Writer) {
	l := termsafe.Line
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tVERSION\tSCENARIO\tRESULT\tTIME\tPUBLISHED")
	for _, x := range r.Results {
		took := "-"
		if x.Took > 0 {
			took = x.Took.Round(100 * time.Millisecond).String()
		}
		pub := published(x.Published)
		if x.Result == Skipped {
			pub = "(" + x.Note + ")"
		} else if x.Result == Stopped && len(x.Published) == 0 {
			pub = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", l(x.Agent), l(x.Version), x.Scenario, x.Result, took, l(pub))
		if x.Error != "" {
			fmt.Fprintf(tw, "\t\t\t\t\t↳ %s\n", l(firstLine(x.Error, "")))
		}
		if x.Note != "" && x.Result != Skipped {
			fmt.Fprintf(tw, "\t\t\t\t\t↳ %s\n", l(x.Note))
		}
	}
	tw.Flush()
	r.writeAgents(w)
	n, failed := 0, 0
	for _, x := range r.Results {
		if x.Result == Pass || x.Result == Fail {
			n++
		}
		if x.Result == Fail {
			failed++
		}
	}
	fmt.Fprintln(w)
	switch {
	case r.Interrupted:
		fmt.Fprintf(w, "selftest: interrupted after %s; the scenarios that ran were cleaned up\n", r.Took.Round(time.Second))
	case failed == 0:
		fmt.Fprintf(w, "selftest: all %d scenarios passed in %s\n", n, r.Took.Round(time.Second))
	default:
		fmt.Fprintf(w, "selftest: %d of %d scenarios failed (%s)\n", failed, n, r.Took.Round(time.Second))
	}
	if len(r.Recorded) > 0 {
		fmt.Fprintf(w, "selftest: recorded %s as known-good on this machine (doctor stops warning about them)\n", l(strings.Join(r.Recorded, ", ")))
	}
	if r.Kept != "" {
		fmt.Fprintf(w, "selftest: to report it, attach the folder %s (each failed scenario's selftest.log, daemon log, recording, timeline, pane output and model requests; the private home in it holds only what the scenario made)\n", l(r.Kept))
	}
}

// agentsWidth is what the agents' table fits in: 80 columns.
const agentsWidth = 80

// writeAgents prints each agent logwatch reads with its result: the
// scenarios it passed or failed, or why it was not covered and what to run
// instead, wrapped under its column.
func (r *Report) writeAgents(w io.Writer) {
	type row struct{ agent, result string }
	var rows []row
	for _, in := range r.Agents {
		n, failed := 0, 0
		var na []string
		for _, x := range r.Results {
			if x.Agent != in.Agent {
				continue
			}
			switch x.Result {
			case Pass:
				n++
			case Fail:
				n++
				failed++
			case Skipped:
				na = append(na, x.Scenario+" n/a: "+x.Note)
			}
		}
		res := fmt.Sprintf("pass: %d %s", n, plural(n, "scenario"))
		switch {
		case failed > 0:
			res = fmt.Sprintf("FAIL: %d of %d %s failed", failed, n, plural(n, "scenario"))
		case r.Interrupted:
			res = "stopped"
		}
		if len(na) > 0 {
			res += "; " + strings.Join(na, "; ")
		}
		rows = append(rows, row{in.Agent + " " + in.Version, res})
	}
	for _, g := range r.NotCovered {
		rows = append(rows, row{g.Agent, g.String()})
	}
	col := len("AGENT")
	for _, x := range rows {
		col = max(col, len(termsafe.Line(x.agent)))
	}
	col += 2
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-*s%s\n", col, "AGENT", "RESULT")
	for _, x := range rows {
		for i, line := range statusview.Wrap(keepCommands(termsafe.Line(x.result)), agentsWidth-col) {
			name := ""
			if i == 0 {
				name = termsafe.Line(x.agent)
			}
			fmt.Fprintf(w, "%-*s%s\n", col, name, strings.ReplaceAll(line, "\x00", " "))
		}
	}
}

// WriteJSON prints the report as one JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Passed bool `json:"passed"`
		*Report
	}{r.Passed(), r})
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// keepCommands joins the words of each `command` in s with NULs (which an
// escaped line has none of), so that wrapping breaks no command to copy.
func keepCommands(s string) string {
	parts := strings.Split(s, "`")
	for i := 1; i < len(parts); i += 2 {
		parts[i] = strings.ReplaceAll(parts[i], " ", "\x00")
	}
	return strings.Join(parts, "`")
}
