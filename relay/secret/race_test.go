package secret

import (
	"path/filepath"
	"sync"
	"testing"
)

// TestSecretConcurrentCreate: the daemon and `hooks install --http` may
// create the secret at the same moment. Every caller must get the one
// secret, never a half-written file ("too short").
func TestSecretConcurrentCreate(t *testing.T) {
	for round := 0; round < 50; round++ {
		path := filepath.Join(t.TempDir(), "rt", "http-secret")
		const n = 16
		got := make([]string, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				got[i], errs[i] = LoadOrCreate(path)
			}()
		}
		close(start)
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("round %d caller %d: %v", round, i, errs[i])
			}
			if got[i] != got[0] {
				t.Fatalf("round %d: two secrets %q and %q", round, got[0], got[i])
			}
		}
	}
}
