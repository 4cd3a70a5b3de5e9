package relay

// store holds the sessions: the live ones (entries, by id), those at rest
// (frozen records, frozen.go), how far this run folded each log (the marks
// a checkpoint saves), and whether the saved state is behind. Only its
// methods add, thaw, freeze or drop a session; a session is found by id
// through get, which thaws a frozen one.
type store struct {
	worktrees  []string          // cfg.Worktrees: a frozen record names its worktree by index
	sessions   map[string]*entry // the live (thawed) sessions
	frozen     []frozenRec       // sessions at rest, by id (frozen.go)
	frozenDead int               // of them, thawed since the last freezeIdle
	files      map[string]folded // path → how far this run received and folded it (frozen sessions keep their own log's: file, setFile)
	// startQuiet is the quiet period armed at restore for every restored
	// session and at BootstrapDone for those whose history ends on a final
	// message (frozen.go, settle), nil once it ran.
	startQuiet *quietArm
	// freezing is freezeAtRest but in tests, which compare a relay that
	// freezes every session at rest after each step with one that never
	// freezes: freezing must change nothing.
	freezing  freezeMode
	restored  bool // a saved state was restored: Replay lines are in it
	booted    bool // BootstrapDone arrived: history arriving now settles at once
	changed   bool // the saved state changed since the last Save
	stateSize int  // bytes of the last encoded state: the next one's first guess
}
