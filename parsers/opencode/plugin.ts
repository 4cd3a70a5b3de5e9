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
// __LOGWATCH_SENDER__ (parsers/hookmodule/sender.ts)

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
