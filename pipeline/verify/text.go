package verify

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints the report for people: one block per file, then totals.
func (r *Report) WriteText(w io.Writer) {
	for _, f := range r.Files {
		fmt.Fprintf(w, "%s\n", f.Path)
		if f.Error != "" {
			fmt.Fprintf(w, "  error: %s\n\n", f.Error)
			continue
		}
		kind := string(f.Agent)
		if f.Subagent {
			kind += " (subagent)"
		}
		fmt.Fprintf(w, "  agent %s  version %s  session %s\n", kind, orDash(f.AgentVersion), orDash(f.SessionID))
		if f.Cwd != "" {
			fmt.Fprintf(w, "  cwd %s\n", f.Cwd)
		}
		fmt.Fprintf(w, "  %d lines, %d bytes: %d malformed, %d oversized", f.Lines, f.Bytes, f.Malformed, f.Oversized)
		if f.Sidechain > 0 {
			fmt.Fprintf(w, ", %d sidechain", f.Sidechain)
		}
		if f.PartialTail {
			fmt.Fprint(w, ", partial last line (not counted)")
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  %d turns, final state %s (%s)\n", f.Turns, f.FinalState, f.FinalReason)
		for _, in := range f.Interrupts {
			fmt.Fprintf(w, "  interrupt  line %d  %s  %s\n", in.Line, in.Kind, in.At)
		}
		for _, c := range f.Compactions {
			fmt.Fprintf(w, "  compaction line %d  %s\n", c.Line, orDash(c.Trigger))
		}
		if len(f.UnknownTypes) > 0 {
			fmt.Fprintf(w, "  unknown types: %s\n", counts(f.UnknownTypes))
		}
		for _, m := range f.Mismatches {
			fmt.Fprintf(w, "  MISMATCH %s\n", m)
		}
		fmt.Fprintln(w)
	}
	t := r.Totals
	fmt.Fprintf(w, "%d files (%s), %d unreadable; %d lines, %d bytes; %d malformed, %d oversized, %d partial tails\n",
		t.Files, counts(t.Agents), t.Unreadable, t.Lines, t.Bytes, t.Malformed, t.Oversized, t.PartialTails)
	fmt.Fprintf(w, "%d turns, %d interrupts, %d compactions; final states: %s\n",
		t.Turns, t.Interrupts, t.Compactions, counts(t.FinalStates))
	switch {
	case t.Mismatches > 0:
		fmt.Fprintf(w, "%d expectation mismatches (%d files with a .expect.json)\n", t.Mismatches, t.Expected)
	case t.Expected > 0:
		fmt.Fprintf(w, "every expectation held (%d files with a .expect.json)\n", t.Expected)
	}
}

func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(m))
	for _, k := range SortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
