// logwatch: opencode plugin, written by `logwatch hooks install --agent opencode`.
// `logwatch hooks uninstall --agent opencode` removes it; install rewrites it
// (do not edit it: a changed file is no longer logwatch's to update).
//
// It forwards OpenCode's state-relevant bus events and hooks to the logwatch
// daemon as the hook events logwatch knows (`logwatch hook --agent opencode`,
// the payload on stdin), one after the other, each in a detached process
// OpenCode never waits for; never the streaming deltas. It never throws into
// OpenCode: with no daemon, or no binary, OpenCode loses nothing.
// OpenCode runs no plugin code when it exits (/exit, Ctrl+C, SIGHUP and
// SIGTERM measured on 1.18.33): its end is the process's, which logwatch
// sees by its tab.
// ---- How the module reaches logwatch (parsers/hookmodule/sender.ts: the
// same in every agent's module logwatch writes).
import { spawn } from "node:child_process";

const LOGWATCH = "__LOGWATCH_BIN__";
const AGENT = "opencode";

// The fields of a tool's input that say what the call acts on (SPEC §6):
// only these are sent, each bounded.
const DETAIL_FIELDS = ["command", "CommandLine", "cmd", "file_path", "path", "filePath", "TargetFile", "url", "query", "Query"];
const MAX_FIELD = 4096;
// Events that may wait behind a slow one; past it a daemon that far behind
// loses the newest.
const MAX_QUEUED = 64;
// How long one hook process may hold the next event back: the hook
// client's own bound (`--detached`: 5 s) and a margin.
const DELIVERY_MS = 6000;

function toolInput(args: unknown): Record<string, string> {
	const out: Record<string, string> = {};
	if (!args || typeof args !== "object") return out;
	for (const k of DETAIL_FIELDS) {
		const v = (args as Record<string, unknown>)[k];
		if (typeof v === "string") out[k] = v.length > MAX_FIELD ? v.slice(0, MAX_FIELD) : v;
	}
	return out;
}

// lastAssistant is the run's last answer, which says how the run ended.
function lastAssistant(messages: unknown): any {
	if (!Array.isArray(messages)) return undefined;
	for (let i = messages.length - 1; i >= 0; i--) {
		if (messages[i]?.role === "assistant") return messages[i];
	}
	return undefined;
}

// payload is the hook event as `logwatch hook` reads it, taken when the
// event happens (the session may have changed by the time it is sent):
// the session from pi's and omp's context, or from extra.
function payload(ctx: any, event: string, extra: Record<string, unknown>): string {
	const sm = ctx?.sessionManager;
	return JSON.stringify({
		hook_event_name: event,
		session_id: String(sm?.getSessionId?.() ?? ""),
		transcript_path: String(sm?.getSessionFile?.() ?? ""),
		cwd: String(ctx?.cwd ?? process.cwd()),
		...extra,
	});
}

// deliver starts one detached `logwatch hook --agent AGENT --detached` with
// body on its stdin: handed settles once the body is written (or cannot
// be), done once the process is gone (or after DELIVERY_MS). Neither ever
// rejects.
function deliver(body: string): { handed: Promise<void>; done: Promise<void> } {
	let handedFn = () => {};
	let doneFn = () => {};
	const handed = new Promise<void>((r) => (handedFn = r));
	const done = new Promise<void>((r) => (doneFn = r));
	const end = () => {
		handedFn();
		doneFn();
	};
	try {
		const child = spawn(LOGWATCH, ["hook", "--agent", AGENT, "--detached"], {
			detached: true,
			stdio: ["pipe", "ignore", "ignore"],
			env: process.env,
		});
		child.on("error", end);
		child.on("exit", end);
		child.stdin?.on("error", () => handedFn());
		child.unref();
		child.stdin?.end(body, () => handedFn());
		setTimeout(end, DELIVERY_MS).unref?.();
	} catch {
		end();
	}
	return { handed, done };
}

let queue: Promise<void> = Promise.resolve();
let queued = 0;

// send queues the event behind the ones before it and returns at once: on a
// busy machine a hook process can take seconds, and the next event's must
// not overtake it (a session start landing after its first turn's start
// would show a working session ready). The agent waits on none of it.
function send(ctx: any, event: string, extra: Record<string, unknown> = {}): void {
	let body: string;
	try {
		body = payload(ctx, event, extra);
	} catch {
		return;
	}
	if (queued >= MAX_QUEUED) return;
	queued++;
	queue = queue
		.then(() => deliver(body).done)
		.catch(() => {})
		.then(() => {
			queued--;
		});
}

// sendNow is for the session's end, which the agent awaits before it
// exits: it goes at once (an exit would cut a queue off), and the promise
// settles when the payload is handed over, or after 200 ms, whatever
// happens. An event still queued then arrives after it, on an ended
// session, where it changes nothing.
function sendNow(ctx: any, event: string, extra: Record<string, unknown> = {}): Promise<void> {
	try {
		const d = deliver(payload(ctx, event, extra));
		return Promise.race([d.handed, new Promise<void>((r) => setTimeout(r, 200).unref?.())]);
	} catch {
		return Promise.resolve();
	}
}

// guarded registers handler for the agent's event name so that nothing it
// throws reaches the agent, and an event this release lacks is skipped.
function guarded(api: any): (name: string, handler: (event: any, ctx: any) => unknown) => void {
	return (name, handler) => {
		try {
			api.on(name, (event: any, ctx: any) => {
				try {
					return handler(event, ctx);
				} catch {
					return undefined;
				}
			});
		} catch {
			// An event this release does not have.
		}
	};
}
// ---- end of the shared part.

// A child session (the task tool's subagent) is reported on its root
// session as SubagentStart/SubagentStop with agent_id = the child's id, so
// that it never revives or busies its parent by itself.
type Child = { root: string; running: boolean };

// The bounds of what the plugin remembers: sessions and tool calls of one
// OpenCode process.
const MAX_SESSIONS = 1024;
const MAX_CALLS = 256;

// permissionInput is what a permission request acts on, as a tool input:
// its metadata's detail fields (bash: the command), else its patterns.
function permissionInput(p: any): Record<string, string> {
	const input = toolInput(p?.metadata);
	if (Object.keys(input).length > 0) return input;
	const patterns = Array.isArray(p?.patterns) ? p.patterns.filter((x: unknown) => typeof x === "string") : [];
	return patterns.length > 0 ? { command: patterns.join(" ").slice(0, MAX_FIELD) } : {};
}

// question is a question request's first question, bounded, for the waiting
// detail.
function question(p: any): string {
	const q = p?.questions?.[0];
	const text = q?.question ?? q?.header;
	return typeof text === "string" ? text.slice(0, MAX_FIELD) : "";
}

function str(v: unknown): string {
	return typeof v === "string" ? v : "";
}

export default async function (ctx: any) {
	const home = str(ctx?.directory) || process.cwd();
	// Root sessions seen in this process, with their directory.
	const roots = new Map<string, string>();
	const children = new Map<string, Child>();
	// Sessions whose turn ended in an error: the idles that follow it (two
	// after an abort) must not turn the interrupt into a finished turn.
	const errored = new Set<string>();
	// Tool inputs by call id, for the tool's end; permission requests by
	// id, for the reply that lets the tool run.
	const calls = new Map<string, Record<string, string>>();
	const asks = new Map<string, Record<string, unknown>>();

	const cwdOf = (sid: string) => roots.get(sid) || home;
	const emit = (sid: string, event: string, extra: Record<string, unknown> = {}) =>
		send(null, event, { session_id: sid, cwd: cwdOf(sid), ...extra });
	// root announces a root session the first time it is seen: created in
	// this process (startup) or taken up from the store (--continue,
	// --session: OpenCode says nothing of it until its first prompt).
	const root = (sid: string, dir: string, source: string) => {
		if (roots.has(sid)) return;
		if (roots.size >= MAX_SESSIONS) roots.clear();
		roots.set(sid, dir || home);
		emit(sid, "SessionStart", { source });
	};
	// childEvent reports a child's event on its root, as the subagent's.
	const childEvent = (c: Child, sid: string, event: string, extra: Record<string, unknown> = {}) =>
		emit(c.root, event, { agent_id: sid, ...extra });
	const subagent = (sid: string, running: boolean) => {
		const c = children.get(sid);
		if (!c || c.running === running) return;
		c.running = running;
		childEvent(c, sid, running ? "SubagentStart" : "SubagentStop");
	};

	const onEvent = (ev: any) => {
		const type = str(ev?.type);
		const p = ev?.properties ?? {};
		const sid = str(p.sessionID) || str(p.info?.id);
		if (!sid) return;
		const child = children.get(sid);
		switch (type) {
			case "session.created": {
				const parent = str(p.info?.parentID);
				if (!parent) return root(sid, str(p.info?.directory), "startup");
				// A child's child belongs to the same root.
				const top = children.get(parent)?.root ?? parent;
				if (children.size >= MAX_SESSIONS) children.clear();
				children.set(sid, { root: top, running: false });
				return subagent(sid, true);
			}
			case "session.deleted":
				// A deleted root session is over (the event is the binary's;
				// 1.18.33 was not seen sending it in the measured scenarios).
				if (child || !roots.has(sid)) return;
				emit(sid, "SessionEnd", { reason: "deleted" });
				roots.delete(sid);
				errored.delete(sid);
				return;
			case "session.status":
				if (p.status?.type === "busy") {
					if (child) return subagent(sid, true);
					errored.delete(sid);
				}
				return;
			case "session.idle":
				if (child) return subagent(sid, false);
				if (errored.has(sid) || !roots.has(sid)) return;
				return emit(sid, "Stop");
			case "session.error": {
				if (child || !roots.has(sid)) return;
				errored.add(sid);
				const name = str(p.error?.name);
				if (name === "MessageAbortedError") return emit(sid, "Stop", { is_interrupt: true });
				return emit(sid, "StopFailure", { error: name || "error" });
			}
			case "session.compacted":
				if (child) return;
				return emit(sid, "PostCompact");
			case "permission.asked": {
				const extra = { tool_name: str(p.permission), tool_input: permissionInput(p) };
				if (asks.size >= MAX_CALLS) asks.clear();
				asks.set(str(p.id), extra);
				if (child) return childEvent(child, sid, "PermissionRequest", extra);
				return emit(sid, "PermissionRequest", extra);
			}
			case "permission.replied": {
				// A rejection ends the tool with an error and the turn goes on
				// to its end: the wait stays until then.
				const extra = asks.get(str(p.requestID)) ?? {};
				asks.delete(str(p.requestID));
				if (p.reply === "reject") return;
				if (child) return childEvent(child, sid, "PostToolUse", extra);
				return emit(sid, "PostToolUse", extra);
			}
			case "question.asked": {
				const extra = { notification_type: "elicitation_dialog", message: question(p) };
				if (child) return childEvent(child, sid, "Notification", extra);
				return emit(sid, "Notification", extra);
			}
			case "question.replied":
			case "question.rejected":
				if (child) return childEvent(child, sid, "PostToolUse");
				return emit(sid, "PostToolUse", { tool_name: "question" });
		}
	};

	const guard =
		(fn: (input: any, output: any) => void) =>
		async (input: any, output: any): Promise<void> => {
			try {
				fn(input, output);
			} catch {}
		};

	return {
		event: guard((input) => onEvent(input?.event)),
		// Once per submitted prompt, before its message is written.
		"chat.message": guard((input) => {
			const sid = str(input?.sessionID);
			if (!sid) return;
			if (children.has(sid)) return subagent(sid, true);
			root(sid, "", "resume");
			errored.delete(sid);
			emit(sid, "UserPromptSubmit");
		}),
		"tool.execute.before": guard((input, output) => {
			const sid = str(input?.sessionID);
			if (!sid || children.has(sid) || !roots.has(sid)) return;
			const args = toolInput(output?.args);
			if (calls.size >= MAX_CALLS) calls.clear();
			calls.set(str(input?.callID), args);
			emit(sid, "PreToolUse", { tool_name: str(input?.tool), tool_input: args });
		}),
		"tool.execute.after": guard((input) => {
			const sid = str(input?.sessionID);
			// A tool the user stopped (Esc Esc) ends after the abort: it must
			// not reopen the interrupted turn.
			if (!sid || children.has(sid) || !roots.has(sid) || errored.has(sid)) return;
			const id = str(input?.callID);
			const args = calls.get(id) ?? toolInput(input?.args);
			calls.delete(id);
			emit(sid, "PostToolUse", { tool_name: str(input?.tool), tool_input: args });
		}),
		"experimental.session.compacting": guard((input) => {
			const sid = str(input?.sessionID);
			if (!sid || children.has(sid)) return;
			root(sid, "", "resume");
			errored.delete(sid);
			emit(sid, "PreCompact");
		}),
	};
}
