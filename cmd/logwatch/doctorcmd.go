package main

import (
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/hookdebug"
	"github.com/logwatch/logwatch/internal/statusview"
	"github.com/logwatch/logwatch/remote"
	"github.com/logwatch/logwatch/setup/doctor"
	"github.com/logwatch/logwatch/setup/knowngood"
)

func newDoctorCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor [--json]",
		Short: "Check this machine's setup and explain each problem with a fix",
		Long: `Checks that the daemon is reachable and its socket private, the log roots exist and
are readable, the inotify limits cover the directories to watch, the hooks are
installed for each agent found, the installed agents and recent logs come from
releases known to work (the project's, or ones logwatch selftest passed with on
this machine), the clock is sane, each remote answers and the daemon's link to it
is up, and each notification sink would work; with $LOGWATCH_HOOK_DEBUG set,
the last hook events the hook client dropped, and why. Works with the daemon
down (and says so); a configuration file that cannot be used is a finding, and
the rest is checked on the defaults.

Exit status: 0 when everything is fine (a fresh install whose agents have not
run yet included), 1 with findings.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// An unreadable record of selftest's passes only means more warnings.
			passed, _ := knowngood.Read(knowngood.Path())
			env := doctor.Env{Roots: a.cfg.Roots(), Socket: a.socketPath(), Proc: "/proc", Now: time.Now(),
				Path: os.Getenv("PATH"), KnownGood: passed, Remotes: a.cfg.Remotes,
				ProbeRemote: func(r config.RemoteConfig) doctor.RemoteProbe {
					p := remote.Probe(cmd.Context(), remotesOf([]config.RemoteConfig{r})[0], remote.Options{Hello: 20 * time.Second})
					return doctor.RemoteProbe{Version: p.Version, Protocol: p.Protocol, Sessions: p.Sessions, Err: p.Err, Fix: p.Fix}
				},
				Sinks: a.cfg.Notify.Sinks, Sink: sinkProber, HookDebug: os.Getenv(hookdebug.Env),
				Progress: a.stderr, ConfigErr: a.cfgErr, ConfigFile: a.cfg.File}
			fs := doctor.Run(env)
			if asJSON {
				if err := doctor.WriteJSON(a.stdout, fs); err != nil {
					return withCode(exitUsage, err)
				}
			} else {
				doctor.WriteText(a.stdout, fs, statusview.ColorOn(a.stdout))
			}
			if doctor.HasFindings(fs) {
				return withCode(exitFindings, nil)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"healthy": bool, "checks": [...]} as JSON`)
	return cmd
}
