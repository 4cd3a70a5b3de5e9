// Package udiff prints unified diffs of small texts: the --dry-run of
// `logwatch hooks` and the tests' golden-file mismatches.
package udiff

import (
	"fmt"
	"io"
	"strings"
)

// Write writes a unified diff (3 lines of context) of two texts, nothing
// when they are equal. Settings files are small, so a plain LCS table is
// enough.
func Write(w io.Writer, oldName, newName string, a, b []byte) {
	x, y := splitLines(string(a)), splitLines(string(b))
	// lcs[i][j] is the LCS length of x[i:] and y[j:].
	lcs := make([][]int32, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		text string
		i, j int // line indexes in x and y before this op
	}
	var ops []op
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, op{' ', x[i], i, j})
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', x[i], i, j})
			i++
		default:
			ops = append(ops, op{'+', y[j], i, j})
			j++
		}
	}
	const ctx = 3
	header := false
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		// A hunk: back up ctx lines, run until ctx*2 unchanged lines.
		start := max(k-ctx, 0)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		if !header {
			fmt.Fprintf(w, "--- %s\n+++ %s\n", oldName, newName)
			header = true
		}
		var na, nb int
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(ops[start].i, na), hunkRange(ops[start].j, nb))
		for _, o := range ops[start:end] {
			fmt.Fprintf(w, "%c%s\n", o.kind, strings.TrimSuffix(o.text, "\n"))
			if !strings.HasSuffix(o.text, "\n") {
				fmt.Fprintln(w, `\ No newline at end of file`)
			}
		}
		k = end
	}
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines keeps each line's newline, so a missing final one shows.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
