package stats

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

// Daemon starts `bin run` with env (whose LOGWATCH_SOCKET is socket) and,
// once the socket answers, subscribes to its changes. stop ends the daemon.
func Daemon(bin string, env []string, socket string) (changes <-chan wire.Event, stop func()) {
	d := exec.Command(bin, "run")
	d.Env = env
	Check(d.Start())
	stop = func() { d.Process.Signal(syscall.SIGTERM); d.Wait() }
	ctx := context.Background()
	var c *client.Client
	var err error
	for i := 0; i < 500; i++ {
		if c, err = client.Dial(ctx, socket); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		stop()
	}
	Check(err)
	changes, _, err = c.Subscribe(ctx)
	if err != nil {
		stop()
	}
	Check(err)
	return changes, stop
}

// HookToChange runs one `bin hook --agent claude` (a prompt for an even i,
// a Stop for an odd one, so each moves the session) and returns how long
// from its start until changes gave the next change.
func HookToChange(bin string, env []string, changes <-chan wire.Event, i int) time.Duration {
	event := "UserPromptSubmit"
	if i%2 == 1 {
		event = "Stop"
	}
	h := exec.Command(bin, "hook", "--agent", "claude")
	h.Env = env
	h.Stdin = strings.NewReader(fmt.Sprintf(`{"hook_event_name":%q,"session_id":"bench","cwd":"/w"}`, event))
	t0 := time.Now()
	Check(h.Start())
	select {
	case <-changes:
	case <-time.After(5 * time.Second):
		Fail("no change within 5s")
	}
	took := time.Since(t0)
	Check(h.Wait())
	return took
}
