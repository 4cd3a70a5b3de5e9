package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/logwatch/logwatch/parsers"
)

// Catalogue is what captured runs of the agents hold, per agent: the line
// types of their logs (as their parser names them) with each type's field
// paths, their hook events with each event's payload fields, and the
// statuses their live registries wrote. The known set (known.json) is the
// catalogue of a green run of the pinned releases.
type Catalogue map[string]*AgentCat

// AgentCat is one agent's part of a catalogue.
type AgentCat struct {
	LineTypes  map[string][]string `json:"line_types"`  // type → field paths
	HookEvents map[string][]string `json:"hook_events"` // event → payload field paths
	Registry   []string            `json:"registry_statuses"`
}

// Drift is one thing a capture holds that the known set lacks.
type Drift struct {
	Agent   string `json:"agent"`
	What    string `json:"what"` // line type, field, hook event, hook field, registry status, unparsed line type
	Name    string `json:"name"`
	Count   int    `json:"count"`
	Example string `json:"example"`
}

// fieldDepth is how deep field paths go: top-level keys and the keys of
// the objects directly under them ("message.content", "payload.type").
// Deeper objects are tool inputs and other content the agents fill freely.
const fieldDepth = 2

// maxExample bounds an example line in the report.
const maxExample = 300

// Scan is a catalogue being built from recordings, with the count and a
// first example of every entry (for the report).
type Scan struct {
	Cat      Catalogue
	counts   map[string]int
	examples map[string]string
	// Unparsed counts, per agent and type, lines their own parser does
	// not know (Evidence.Unknown): drift whatever the known set says.
	Unparsed map[string]map[string]int
}

// NewScan returns an empty scan.
func NewScan() *Scan {
	return &Scan{Cat: Catalogue{}, counts: map[string]int{}, examples: map[string]string{}, Unparsed: map[string]map[string]int{}}
}

// record is the part of a logwatch recording line (relay.RecordLine) the
// scan reads.
type record struct {
	Kind     string          `json:"kind"`
	Agent    string          `json:"agent"`
	Raw      string          `json:"raw"`
	Subagent bool            `json:"subagent"`
	Payload  json.RawMessage `json:"payload"`
	Registry *struct {
		Status, WaitingFor string
	} `json:"registry"`
}

// Dir scans every recording (*record.jsonl) under dir.
func (s *Scan) Dir(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "record.jsonl") {
			return err
		}
		return s.File(p)
	})
}

// File scans one recording.
func (s *Scan) File(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	parsersOf := map[string]parsers.Parser{}
	for sc.Scan() {
		var r record
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		switch r.Kind {
		case "log":
			if r.Raw == "" || parsers.Lookup(parsers.Agent(r.Agent)) == nil {
				continue
			}
			p := parsersOf[r.Agent]
			if p == nil {
				p = parsers.New(parsers.Agent(r.Agent))
				parsersOf[r.Agent] = p
			}
			ev, err := p.Parse([]byte(r.Raw))
			if err != nil {
				continue
			}
			typ := ev.Type
			if typ == "" {
				typ = "(no type)"
			}
			if ev.Unknown {
				u := s.Unparsed[r.Agent]
				if u == nil {
					u = map[string]int{}
					s.Unparsed[r.Agent] = u
				}
				u[typ]++
				s.note(r.Agent, "unparsed line type", typ, r.Raw)
			}
			s.add(r.Agent, "line type", typ, r.Raw)
			for _, f := range fields([]byte(r.Raw)) {
				s.add(r.Agent, "field", typ+" "+f, r.Raw)
			}
		case "hook":
			h, err := parsers.ParseAgentHook(parsers.Agent(r.Agent), r.Payload)
			if err != nil {
				continue
			}
			agent := r.Agent
			if agent == "" {
				agent = string(parsers.HookAgent(&h))
			}
			s.add(agent, "hook event", h.Event, string(r.Payload))
			for _, f := range fields(r.Payload) {
				s.add(agent, "hook field", h.Event+" "+f, string(r.Payload))
			}
		case "registry":
			if r.Registry != nil && r.Registry.Status != "" {
				// Registry records do not name their agent: the agents that
				// keep a registry share the status words' meaning.
				for _, a := range parsers.All() {
					if a.Registry != nil {
						b, _ := json.Marshal(r.Registry)
						s.add(string(a.Name), "registry status", r.Registry.Status, string(b))
					}
				}
			}
		}
	}
	return sc.Err()
}

// add counts one occurrence of an entry and puts it in the catalogue.
func (s *Scan) add(agent, what, name, example string) {
	s.note(agent, what, name, example)
	a := s.Cat[agent]
	if a == nil {
		a = &AgentCat{LineTypes: map[string][]string{}, HookEvents: map[string][]string{}}
		s.Cat[agent] = a
	}
	switch what {
	case "line type":
		if _, ok := a.LineTypes[name]; !ok {
			a.LineTypes[name] = []string{}
		}
	case "field":
		typ, f, _ := strings.Cut(name, " ")
		a.LineTypes[typ] = insert(a.LineTypes[typ], f)
	case "hook event":
		if _, ok := a.HookEvents[name]; !ok {
			a.HookEvents[name] = []string{}
		}
	case "hook field":
		ev, f, _ := strings.Cut(name, " ")
		a.HookEvents[ev] = insert(a.HookEvents[ev], f)
	case "registry status":
		a.Registry = insert(a.Registry, name)
	}
}

func (s *Scan) note(agent, what, name, example string) {
	k := agent + "\x00" + what + "\x00" + name
	s.counts[k]++
	if _, ok := s.examples[k]; !ok {
		if len(example) > maxExample {
			example = example[:maxExample] + "…"
		}
		s.examples[k] = example
	}
}

func insert(list []string, v string) []string {
	if i, found := slices.BinarySearch(list, v); !found {
		return slices.Insert(list, i, v)
	}
	return list
}

// fields are a JSON object's key paths to fieldDepth: "a", "a.b"; an
// array's objects are looked into as "a[]".
func fields(b []byte) []string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	var out []string
	var walk func(prefix string, v any, depth int)
	walk = func(prefix string, v any, depth int) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				out = append(out, p)
				if depth < fieldDepth {
					walk(p, c, depth+1)
				}
			}
		case []any:
			for _, c := range x {
				if _, ok := c.(map[string]any); ok && depth < fieldDepth {
					walk(prefix+"[]", c, depth)
				}
			}
		}
	}
	walk("", v, 1)
	slices.Sort(out)
	return slices.Compact(out)
}

// Against lists what the scan holds that known lacks, and every line type
// the agents' own parsers do not know, sorted by agent, kind and name.
func (s *Scan) Against(known Catalogue) []Drift {
	var out []Drift
	d := func(agent, what, name string) {
		k := agent + "\x00" + what + "\x00" + name
		out = append(out, Drift{Agent: agent, What: what, Name: name, Count: s.counts[k], Example: s.examples[k]})
	}
	for agent, a := range s.Cat {
		k := known[agent]
		if k == nil {
			k = &AgentCat{}
		}
		for typ, fs := range a.LineTypes {
			kf, ok := k.LineTypes[typ]
			if !ok {
				d(agent, "line type", typ)
			}
			for _, f := range fs {
				if ok && !slices.Contains(kf, f) {
					d(agent, "field", typ+" "+f)
				}
			}
		}
		for ev, fs := range a.HookEvents {
			kf, ok := k.HookEvents[ev]
			if !ok {
				d(agent, "hook event", ev)
			}
			for _, f := range fs {
				if ok && !slices.Contains(kf, f) {
					d(agent, "hook field", ev+" "+f)
				}
			}
		}
		for _, st := range a.Registry {
			if !slices.Contains(k.Registry, st) {
				d(agent, "registry status", st)
			}
		}
	}
	for agent, u := range s.Unparsed {
		for typ := range u {
			d(agent, "unparsed line type", typ)
		}
	}
	slices.SortFunc(out, func(a, b Drift) int {
		return strings.Compare(a.Agent+"\x00"+a.What+"\x00"+a.Name, b.Agent+"\x00"+b.What+"\x00"+b.Name)
	})
	return out
}

// Merge adds b's entries to c.
func (c Catalogue) Merge(b Catalogue) {
	for agent, a := range b {
		k := c[agent]
		if k == nil {
			k = &AgentCat{LineTypes: map[string][]string{}, HookEvents: map[string][]string{}}
			c[agent] = k
		}
		for typ, fs := range a.LineTypes {
			for _, f := range fs {
				k.LineTypes[typ] = insert(k.LineTypes[typ], f)
			}
			if k.LineTypes[typ] == nil {
				k.LineTypes[typ] = []string{}
			}
		}
		for ev, fs := range a.HookEvents {
			for _, f := range fs {
				k.HookEvents[ev] = insert(k.HookEvents[ev], f)
			}
			if k.HookEvents[ev] == nil {
				k.HookEvents[ev] = []string{}
			}
		}
		for _, st := range a.Registry {
			k.Registry = insert(k.Registry, st)
		}
	}
}

// ReadCatalogue reads a known set; a missing file is an empty one.
func ReadCatalogue(path string) (Catalogue, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return Catalogue{}, nil
	}
	if err != nil {
		return nil, err
	}
	c := Catalogue{}
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Write writes c as indented JSON with sorted keys (encoding/json sorts
// map keys), so that a raise is a readable diff.
func (c Catalogue) Write(path string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
