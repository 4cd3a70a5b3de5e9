#!/usr/bin/env node
// A host app's first exchange with the logwatch daemon (docs/protocol.md).
//
// Usage: node protocol.mjs [SOCKET]   (default $LOGWATCH_SOCKET, then
// $XDG_RUNTIME_DIR/logwatch/logwatch.sock). Node's standard library only.
//
// It reads the status, subscribes, reports a turn through hooks on a second
// connection, acknowledges it, closes its tab, and prints each change the
// subscription streams. It changes the state of a session named example-1
// and a tab named example-tab, nothing else.
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

function defaultSocket() {
  if (process.env.LOGWATCH_SOCKET) return process.env.LOGWATCH_SOCKET;
  if (process.env.XDG_RUNTIME_DIR) return path.join(process.env.XDG_RUNTIME_DIR, 'logwatch', 'logwatch.sock');
  return path.join(os.tmpdir(), `logwatch-${process.getuid()}`, 'logwatch.sock');
}

// connect opens one connection: one JSON object per line each way.
async function connect(socketPath) {
  const sock = net.createConnection(socketPath);
  await new Promise((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
  const lines = readline.createInterface({ input: sock })[Symbol.asyncIterator]();
  const read = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the daemon closed the connection');
    return JSON.parse(value);
  };
  const call = async (req) => { // a request and its answer; {"ok": false} throws
    sock.write(JSON.stringify(req) + '\n');
    const resp = await read();
    if (!resp.ok) throw new Error(resp.error);
    return resp;
  };
  return { read, call, close: () => sock.destroy() };
}

const socketPath = process.argv[2] || defaultSocket();
const api = await connect(socketPath);
const st = await api.call({ op: 'status' });
if (st.protocol !== 1) throw new Error(`unknown protocol version ${st.protocol}`);
console.log(`protocol ${st.protocol}, ${st.status.sessions.length} sessions`);

const stream = await connect(socketPath);
const first = await stream.call({ op: 'subscribe' });
console.log(`subscribed, ${first.snapshot} snapshot lines`);
for (let i = 0; i < first.snapshot; i++) await stream.read(); // one line per known session, "snapshot": true

const hook = (event) => api.call({ op: 'hook', agent: 'claude', tab: 'example-tab',
  payload: { hook_event_name: event, session_id: 'example-1', cwd: '/tmp/example' } });
const change = async () => {
  for (;;) {
    const ev = await stream.read();
    if ('ok' in ev) throw new Error(ev.error); // an error line ends the stream: resubscribe
    if (ev.session === 'example-1') {
      console.log(`${ev.session} ${ev.state} ${ev.reason} (${ev.source}, rule ${ev.rule})`);
      return ev;
    }
  }
};

await hook('UserPromptSubmit');
await change();
await hook('Stop');
await change();
await api.call({ op: 'ack', session: 'example-1' });
await change();
const { ended } = await api.call({ op: 'tab_closed', tab: 'example-tab' });
await change();
console.log(`tab closed, ${ended} session ended`);
try {
  await api.call({ op: 'nope' });
} catch (e) {
  console.log(`refused: ${e.message}`);
}
api.close();
stream.close();
