package selftest

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/logwatch/logwatch/internal/termsafe"
)

// WriteText prints the table (agent, version, scenario, result, time,
// what was published; a failure's reason under its row), then what was
// recorded, or what to attach to a report. Versions and reasons come from
// the agents and the daemon: each is escaped, one line.
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
			pub = "(the agent has none)"
		} else if x.Result == Stopped && len(x.Published) == 0 {
			pub = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", l(x.Agent), l(x.Version), x.Scenario, x.Result, took, l(pub))
		if x.Error != "" {
			fmt.Fprintf(tw, "\t\t\t\t\t↳ %s\n", l(firstLine(x.Error, "")))
		}
	}
	tw.Flush()
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
	for _, g := range r.NotCovered {
		fmt.Fprintf(w, "selftest: not covered: %s: %s\n", l(g.Agent), l(g.Reason))
	}
	if len(r.Recorded) > 0 {
		fmt.Fprintf(w, "selftest: recorded %s as known-good on this machine (doctor stops warning about them)\n", l(strings.Join(r.Recorded, ", ")))
	}
	if r.Kept != "" {
		fmt.Fprintf(w, "selftest: to report it, attach the folder %s (each failed scenario's selftest.log, daemon log, recording, timeline, pane output and model requests; the private home in it holds only what the scenario made)\n", l(r.Kept))
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
