//go:build !darwin

package desktop

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/godbus/dbus/v5"
	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/notify"
	"github.com/logwatch/logwatch/relay/session"
)

// The freedesktop notification service (Desktop Notifications
// Specification 1.2).
const (
	busName   = "org.freedesktop.Notifications"
	busPath   = dbus.ObjectPath("/org/freedesktop/Notifications")
	busIface  = "org.freedesktop.Notifications"
	sigClosed = busIface + ".NotificationClosed"
	sigAction = busIface + ".ActionInvoked"
)

// Urgency levels of the "urgency" hint.
const (
	urgencyLow      byte = 0
	urgencyNormal   byte = 1
	urgencyCritical byte = 2
)

// ErrNoBus says there is no session bus to reach: a headless machine, or a
// service started outside the desktop session.
var ErrNoBus = errors.New("desktop: no session bus (DBUS_SESSION_BUS_ADDRESS is unset and $XDG_RUNTIME_DIR/bus is absent): " +
	"run the daemon inside the desktop session (or import DBUS_SESSION_BUS_ADDRESS into its service manager), " +
	"or use a command or webhook sink on a headless machine")

// Sink shows alerts through the session bus's notification server.
type Sink struct {
	cfg Config
	log zerolog.Logger

	// call serialises the bus calls and guards conn and caps; mu guards
	// the alert map, which the signal goroutine also changes. The signal
	// goroutine never takes call, so a call waiting for its reply can never
	// hold up the signals that reader is delivering.
	call sync.Mutex
	conn *dbus.Conn
	caps []string

	mu    sync.Mutex
	order *list.List               // of *shown, oldest Show first
	byKey map[string]*list.Element // alert key → its element
	byID  map[uint32]*list.Element // server's notification id → its element
}

// shown is one alert on the server.
type shown struct {
	id    uint32
	alert notify.Alert
}

// New returns the desktop sink. It connects on first use and again after
// the bus drops, so a desktop session started after the daemon still works.
func New(cfg Config, log zerolog.Logger) *Sink {
	return &Sink{
		cfg:   cfg,
		log:   log.With().Str("component", "notify-desktop").Logger(),
		order: list.New(),
		byKey: map[string]*list.Element{},
		byID:  map[uint32]*list.Element{},
	}
}

// Name is the sink's name in logs and doctor.
func (s *Sink) Name() string { return "desktop" }

// Show shows a's alert, replacing the one shown for a.Key.
func (s *Sink) Show(ctx context.Context, a notify.Alert) error {
	s.call.Lock()
	defer s.call.Unlock()
	var evicted []uint32
	err := s.do(ctx, func(conn *dbus.Conn) error {
		markup, actions := slices.Contains(s.caps, "body-markup"), slices.Contains(s.caps, "actions")
		var acts []string
		if actions {
			acts = []string{"default", "Open"}
		}
		urgency, category, expire := urgencyCritical, "x-logwatch.waiting", int32(0)
		if a.State != string(session.Waiting) {
			// A finished turn is a quiet checkmark: low, and gone when
			// the server's own timeout says so.
			urgency, category, expire = urgencyLow, "x-logwatch.done", -1
		}
		hints := map[string]dbus.Variant{
			"urgency":  dbus.MakeVariant(urgency),
			"category": dbus.MakeVariant(category),
		}
		var id uint32
		err := conn.Object(busName, busPath).CallWithContext(ctx, busIface+".Notify", 0,
			AppName, s.idOf(a.Key), "", summary(a), body(a, markup), acts, hints, expire).Store(&id)
		if err != nil {
			return err
		}
		evicted = s.remember(a, id)
		return nil
	})
	if err != nil {
		return fmt.Errorf("desktop: show %q: %w", a.Key, err)
	}
	for _, id := range evicted {
		// Forgotten past the bound: closed, so it cannot go stale unseen.
		if err := s.do(ctx, func(conn *dbus.Conn) error { return closeCall(ctx, conn, id) }); err != nil {
			s.log.Warn().Err(err).Uint32("id", id).Msg("closing the oldest alert past the bound")
		}
	}
	return nil
}

// Withdraw closes the alert shown for a.Key, if any.
func (s *Sink) Withdraw(ctx context.Context, a notify.Alert) error {
	s.call.Lock()
	defer s.call.Unlock()
	id := s.idOf(a.Key)
	if id == 0 {
		return nil
	}
	if err := s.do(ctx, func(conn *dbus.Conn) error { return closeCall(ctx, conn, id) }); err != nil {
		// Kept: the session's next Show replaces it.
		return fmt.Errorf("desktop: withdraw %q: %w", a.Key, err)
	}
	s.forget(id)
	return nil
}

// Probe says which notification server answers and what it can do, for
// doctor: "name version (vendor, spec x)" and its capabilities.
func (s *Sink) Probe(ctx context.Context) (server string, caps []string, err error) {
	s.call.Lock()
	defer s.call.Unlock()
	err = s.do(ctx, func(conn *dbus.Conn) error {
		var name, vendor, version, spec string
		obj := conn.Object(busName, busPath)
		if err := obj.CallWithContext(ctx, busIface+".GetServerInformation", 0).Store(&name, &vendor, &version, &spec); err != nil {
			return err
		}
		if err := obj.CallWithContext(ctx, busIface+".GetCapabilities", 0).Store(&caps); err != nil {
			return err
		}
		s.caps = caps
		server = fmt.Sprintf("%s %s (%s, spec %s)", name, version, vendor, spec)
		return nil
	})
	if err != nil {
		return "", nil, fmt.Errorf("desktop: probe: %w", err)
	}
	return server, caps, nil
}

// Close drops the bus connection; alerts on screen stay with the server.
func (s *Sink) Close() error {
	s.call.Lock()
	defer s.call.Unlock()
	if s.conn == nil {
		return nil
	}
	err := s.conn.Close()
	s.conn = nil
	return err
}

func closeCall(ctx context.Context, conn *dbus.Conn, id uint32) error {
	return conn.Object(busName, busPath).CallWithContext(ctx, busIface+".CloseNotification", 0, id).Err
}

// do runs f on a connected bus. Called with s.call held.
func (s *Sink) do(ctx context.Context, f func(*dbus.Conn) error) error {
	conn, err := s.connect(ctx)
	if err != nil {
		return err
	}
	return f(conn)
}

func (s *Sink) drop() {
	if s.conn != nil {
		_ = s.conn.Close()
		s.conn = nil
	}
}

// address is the session bus to dial.
func (s *Sink) address() (string, error) {
	if s.cfg.Address != "" {
		return s.cfg.Address, nil
	}
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
		return a, nil
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		p := filepath.Join(dir, "bus")
		if fi, err := os.Stat(p); err == nil && fi.Mode().Type() == os.ModeSocket {
			return "unix:path=" + p, nil
		}
	}
	return "", ErrNoBus
}

// connect returns the live connection, dialling (within ctx) when there is
// none, or when the one there was dropped (its reader closes it on the
// bus's end of file, so a restarted session bus costs a dial, not an
// alert): authenticated, subscribed to the server's closed and action
// signals, and the server's capabilities read. Called with s.call held.
func (s *Sink) connect(ctx context.Context) (*dbus.Conn, error) {
	if s.conn != nil && s.conn.Connected() {
		return s.conn, nil
	}
	s.drop()
	addr, err := s.address()
	if err != nil {
		return nil, err
	}
	// Connect takes no deadline of its own: it runs aside, and a connection
	// that arrives after ctx ended is closed.
	type result struct {
		conn *dbus.Conn
		err  error
	}
	done := make(chan result, 1)
	go func() {
		c, err := dbus.Connect(addr)
		done <- result{c, err}
	}()
	var conn *dbus.Conn
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("connect to the session bus %s: %w", addr, r.err)
		}
		conn = r.conn
	case <-ctx.Done():
		go func() {
			if r := <-done; r.conn != nil {
				_ = r.conn.Close()
			}
		}()
		return nil, fmt.Errorf("connect to the session bus %s: %w", addr, ctx.Err())
	}
	if err := conn.AddMatchSignalContext(ctx,
		dbus.WithMatchSender(busName), dbus.WithMatchObjectPath(busPath), dbus.WithMatchInterface(busIface)); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("subscribe to the notification server's signals: %w", err)
	}
	sigs := make(chan *dbus.Signal, 64)
	conn.Signal(sigs)
	go s.signals(sigs)
	var caps []string
	if err := conn.Object(busName, busPath).CallWithContext(ctx, busIface+".GetCapabilities", 0).Store(&caps); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("no notification server on the session bus %s: %w", addr, err)
	}
	s.conn, s.caps = conn, caps
	s.log.Debug().Str("path", addr).Strs("caps", caps).Msg("connected to the session bus")
	return conn, nil
}

// signals follows the server's signals until the connection closes: an
// alert the person dismissed (or that expired) is forgotten, so the next
// Show makes a new one rather than replacing what is gone; a click on an
// alert goes to cfg.Activated.
func (s *Sink) signals(ch <-chan *dbus.Signal) {
	for sig := range ch {
		if len(sig.Body) < 2 {
			continue
		}
		id, ok := sig.Body[0].(uint32)
		if !ok {
			continue
		}
		switch sig.Name {
		case sigClosed:
			s.forget(id)
		case sigAction:
			if action, _ := sig.Body[1].(string); action != "default" || s.cfg.Activated == nil {
				continue
			}
			s.mu.Lock()
			e, ok := s.byID[id]
			var a notify.Alert
			if ok {
				a = e.Value.(*shown).alert
			}
			s.mu.Unlock()
			if ok {
				s.cfg.Activated(a)
			}
		}
	}
}

// idOf is the server's id of key's alert, 0 (a new one) when none.
func (s *Sink) idOf(key string) uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.byKey[key]; ok {
		return e.Value.(*shown).id
	}
	return 0
}

// remember records that the server shows a as id, and returns the ids of
// alerts forgotten past the bound.
func (s *Sink) remember(a notify.Alert, id uint32) (evicted []uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.byKey[a.Key]; ok {
		old := e.Value.(*shown)
		delete(s.byID, old.id)
		s.order.Remove(e)
		delete(s.byKey, a.Key)
	}
	if e, ok := s.byID[id]; ok {
		// The server reused an id it had closed for another key.
		s.order.Remove(e)
		delete(s.byKey, e.Value.(*shown).alert.Key)
	}
	e := s.order.PushBack(&shown{id: id, alert: a})
	s.byKey[a.Key], s.byID[id] = e, e
	for s.order.Len() > s.cfg.maxAlerts() {
		oldest := s.order.Front()
		sh := oldest.Value.(*shown)
		s.order.Remove(oldest)
		delete(s.byKey, sh.alert.Key)
		delete(s.byID, sh.id)
		evicted = append(evicted, sh.id)
	}
	return evicted
}

// forget drops the alert the server knows as id.
func (s *Sink) forget(id uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.byID[id]; ok {
		s.order.Remove(e)
		delete(s.byID, id)
		delete(s.byKey, e.Value.(*shown).alert.Key)
	}
}

// shownCount is how many sessions' alerts the sink remembers.
func (s *Sink) shownCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len()
}

var _ notify.Sink = (*Sink)(nil)
