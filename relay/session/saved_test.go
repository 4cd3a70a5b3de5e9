package session

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"testing"

	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/parsers/codex"
)

// TestSavedHasEveryField: a field added to Session must be added to Saved.
func TestSavedHasEveryField(t *testing.T) {
	if s, v := reflect.TypeOf(Session{}).NumField(), reflect.TypeOf(Saved{}).NumField(); s != v {
		t.Fatalf("Session has %d fields, Saved %d: persist the new field", s, v)
	}
}

// TestSaveRestoreRoundTrip walks sessions through random hooks and log
// evidence; after every step the session saved, encoded, decoded and
// restored equals the original, and both then judge the next input alike.
func TestSaveRestoreRoundTrip(t *testing.T) {
	evs := walkEvidence()
	for seed := int64(0); seed < 40; seed++ {
		rnd := rand.New(rand.NewSource(seed))
		agent := claude.Name
		if seed%3 == 0 {
			agent = codex.Name
		}
		s := New(agent)
		s.ID = "s"
		for i := 0; i < 60; i++ {
			b, err := json.Marshal(s.Save())
			if err != nil {
				t.Fatal(err)
			}
			var v Saved
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			r := Restore(v)
			if !reflect.DeepEqual(r, s) {
				t.Fatalf("seed %d step %d: restored\n %+v\nwant\n %+v", seed, i, r, s)
			}
			in := randomInput(rnd, "s", evs)
			c1, ok1 := in(s)
			c2, ok2 := in(r)
			if c1 != c2 || ok1 != ok2 {
				t.Fatalf("seed %d step %d: original %v %v, restored %v %v", seed, i, c1, ok1, c2, ok2)
			}
		}
	}
}
