package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/logwatch/logwatch/internal/atomicfile"
	"github.com/logwatch/logwatch/internal/safeopen"
)

// DefaultFile is the configuration file read when none is named: the
// user's config dir's logwatch/config.yaml.
func DefaultFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no configuration directory: %w", err)
	}
	return filepath.Join(dir, "logwatch", "config.yaml"), nil
}

// ErrRemoteExists refuses to add a remote under a name in use.
var ErrRemoteExists = errors.New("a remote of that name exists")

// ErrNoRemote is a remote name the file does not have.
var ErrNoRemote = errors.New("no remote of that name")

// AddRemote adds r to file's top-level remotes (creating the file, 0600,
// when it does not exist), keeping the rest of it, comments included.
func AddRemote(file string, r RemoteConfig) error {
	if err := CheckRemote(r); err != nil {
		return err
	}
	return editRemotes(file, func(list *yaml.Node) error {
		for _, it := range list.Content {
			if remoteNodeName(it) == r.Name {
				return fmt.Errorf("%w: %s (remove it first)", ErrRemoteExists, r.Name)
			}
		}
		var n yaml.Node
		entry := struct { // in the order a person reads them
			Name    string   `yaml:"name"`
			Dest    string   `yaml:"dest"`
			Command string   `yaml:"command,omitempty"`
			SSH     []string `yaml:"ssh,omitempty"`
		}{r.Name, r.Dest, r.Command, r.SSH}
		if err := n.Encode(entry); err != nil {
			return err
		}
		n.Style = yaml.FlowStyle
		list.Style = 0
		list.Content = append(list.Content, &n)
		return nil
	})
}

// RemoveRemote removes the remote called name from file's remotes.
func RemoveRemote(file, name string) error {
	return editRemotes(file, func(list *yaml.Node) error {
		for i, it := range list.Content {
			if remoteNodeName(it) == name {
				list.Content = append(list.Content[:i], list.Content[i+1:]...)
				return nil
			}
		}
		return fmt.Errorf("%w: %s", ErrNoRemote, name)
	})
}

func remoteNodeName(n *yaml.Node) string {
	var r struct {
		Name string `yaml:"name"`
	}
	if n.Decode(&r) != nil {
		return ""
	}
	return r.Name
}

// editRemotes reads file (a regular file, bounded), hands its top-level
// remotes list to edit and writes the result back atomically.
func editRemotes(file string, edit func(list *yaml.Node) error) error {
	return editList(file, []string{"remotes"}, edit)
}

// editList is editRemotes for the list at path (mappings made on the way
// when missing): remotes, notify.sinks.
func editList(file string, path []string, edit func(list *yaml.Node) error) error {
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real // a config kept in a dotfiles repo stays linked
	}
	raw, err := safeopen.ReadFile(file, MaxFileBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("config %s: %w", file, err)
	}
	var doc yaml.Node
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := yaml.Unmarshal(raw, &doc); err != nil {
			return fmt.Errorf("config %s: %w", file, err)
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("config %s: the document is not a mapping of keys", file)
	}
	node := root
	for i, key := range path {
		var next *yaml.Node
		for j := 0; j+1 < len(node.Content); j += 2 {
			if node.Content[j].Value == key {
				next = node.Content[j+1]
			}
		}
		last := i == len(path)-1
		if next == nil || (next.Kind == yaml.ScalarNode && next.Tag == "!!null") {
			fresh := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			if last {
				fresh = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			}
			if next != nil {
				*next = *fresh
			} else {
				next = fresh
				node.Content = append(node.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, next)
			}
		}
		want, what := yaml.MappingNode, "a mapping"
		if last {
			want, what = yaml.SequenceNode, "a list"
		}
		if next.Kind != want {
			return fmt.Errorf("config %s: %s is not %s", file, strings.Join(path[:i+1], "."), what)
		}
		node = next
	}
	list := node
	if err := edit(list); err != nil {
		return err
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("config %s: %w", file, err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("config %s: %w", file, err)
	}
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(file); err == nil {
		mode = st.Mode().Perm()
	}
	if err := atomicfile.Write(file, out.Bytes(), mode); err != nil {
		return fmt.Errorf("config %s: %w", file, err)
	}
	return nil
}
