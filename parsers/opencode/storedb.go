package opencode

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/opencode/store"
)

// dataDir is where OpenCode keeps its database (a configuration path).
const dataDir = "${XDG_DATA_HOME:-~/.local/share}/opencode"

// dbFile is the database of OpenCode's release channels (latest, beta,
// prod); another channel's is opencode-<channel>.db, and OPENCODE_DB names
// any other (formats/opencode.md §3.1): a root's databases are listed here.
const dbFile = "opencode.db"

// storeSpec is OpenCode's database as parsers.Store: its event rows, woken
// by writes to the database or its WAL (where every write lands first).
func storeSpec() *parsers.Store {
	return &parsers.Store{
		Files: []string{dbFile},
		Wakes: func(db, name string) bool {
			base := filepath.Base(db)
			return name == base || name == base+"-wal"
		},
		Open: func(path string) (parsers.StoreDB, error) {
			d, err := store.Open(path)
			if err != nil {
				return nil, wrap(err)
			}
			return storeDB{d}, nil
		},
	}
}

// storeDB is store.DB as parsers.StoreDB.
type storeDB struct{ d *store.DB }

func (s storeDB) Changes(after int64, max int, maxBytes int64) ([]parsers.StoreRow, error) {
	rows, err := s.d.ChangesWithin(after, max, maxBytes)
	return storeRows(rows), wrap(err)
}

func (s storeDB) Current(since time.Time, perSession int, each func([]parsers.StoreRow) error) (int64, error) {
	var buf []parsers.StoreRow
	var stopped error // each's own, returned as it is
	cursor, err := s.d.Current(since, perSession, func(rows []store.Row) error {
		buf = appendStoreRows(buf[:0], rows)
		stopped = each(buf)
		clear(buf) // the lines, for the collector
		return stopped
	})
	if err != nil && err == stopped {
		return 0, err
	}
	return cursor, wrap(err)
}

func (s storeDB) Version() (uint64, bool) { return s.d.Version() }

func (s storeDB) Close() error { return s.d.Close() }

func storeRows(rows []store.Row) []parsers.StoreRow {
	return appendStoreRows(make([]parsers.StoreRow, 0, len(rows)), rows)
}

// appendStoreRows makes each row's line, dropping its data once it did
// (the data is the line's bulk: both of every row would be twice it).
func appendStoreRows(out []parsers.StoreRow, rows []store.Row) []parsers.StoreRow {
	for i := range rows {
		r := &rows[i]
		if r.Unread {
			out = append(out, parsers.StoreRow{Cursor: r.RowID, Session: r.Session, Parent: r.Parent, Size: r.Size})
			continue
		}
		out = append(out, parsers.StoreRow{Cursor: r.RowID, Session: r.Session, Parent: r.Parent, Line: r.Line()})
		r.Data = nil
	}
	return out
}

// wrap says the store's "not now" and "start again" in the seam's words.
func wrap(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrBusy):
		return fmt.Errorf("%w: %w", parsers.ErrStoreBusy, err)
	case errors.Is(err, store.ErrDamaged):
		return fmt.Errorf("%w: %w", parsers.ErrStoreDamaged, err)
	case errors.Is(err, store.ErrReset):
		return fmt.Errorf("%w: %w", parsers.ErrStoreReset, err)
	}
	return err
}
