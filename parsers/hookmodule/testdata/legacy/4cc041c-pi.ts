// logwatch: pi extension, written by `logwatch hooks install --agent pi`.
// `logwatch hooks uninstall --agent pi` removes it; install rewrites it (do
// not edit it: a changed file is no longer logwatch's to update).
//
// It forwards pi's lifecycle events to the logwatch daemon as the hook events
// logwatch knows (`logwatch hook --agent pi`, the payload on stdin), each in
// a detached process it never waits for. It never throws into pi: with no
// daemon, or no binary, pi loses nothing.
import { spawn } from "node:child_process";

const LOGWATCH = "__LOGWATCH_BIN__";

// The fields of a tool's input that say what the call acts on (SPEC §6):
// only these are sent, each bounded.
const DETAIL_FIELDS = ["command", "CommandLine", "cmd", "file_path", "path", "filePath", "TargetFile", "url", "query", "Query"];
const MAX_FIELD = 4096;

function toolInput(args: unknown): Record<string, string> {
	const out: Record<string, string> = {};
	if (!args || typeof args !== "object") return out;
	for (const k of DETAIL_FIELDS) {
		const v = (args as Record<string, unknown>)[k];
		if (typeof v === "string") out[k] = v.length > MAX_FIELD ? v.slice(0, MAX_FIELD) : v;
	}
	return out;
}

// send starts `logwatch hook --agent pi` with the event's payload and
// returns at once; the promise (awaited only at shutdown, so that the
// payload is written before pi exits) resolves when the payload is handed
// over, or after 200 ms, whatever happens.
function send(ctx: any, event: string, extra: Record<string, unknown> = {}): Promise<void> {
	return new Promise((resolve) => {
		try {
			const sm = ctx?.sessionManager;
			const payload = JSON.stringify({
				hook_event_name: event,
				session_id: String(sm?.getSessionId?.() ?? ""),
				transcript_path: String(sm?.getSessionFile?.() ?? ""),
				cwd: String(ctx?.cwd ?? process.cwd()),
				...extra,
			});
			const child = spawn(LOGWATCH, ["hook", "--agent", "pi"], {
				detached: true,
				stdio: ["pipe", "ignore", "ignore"],
				env: process.env,
			});
			child.on("error", () => resolve());
			child.stdin?.on("error", () => resolve());
			child.unref();
			child.stdin?.end(payload, () => resolve());
			setTimeout(resolve, 200).unref();
		} catch {
			resolve();
		}
	});
}

// lastAssistant is the run's last answer, which says how the run ended.
function lastAssistant(messages: unknown): any {
	if (!Array.isArray(messages)) return undefined;
	for (let i = messages.length - 1; i >= 0; i--) {
		if (messages[i]?.role === "assistant") return messages[i];
	}
	return undefined;
}

export default function (pi: any) {
	const inputs = new Map<string, Record<string, string>>();
	const on = (name: string, handler: (event: any, ctx: any) => unknown) => {
		try {
			pi.on(name, (event: any, ctx: any) => {
				try {
					return handler(event, ctx);
				} catch {
					return undefined;
				}
			});
		} catch {
			// An event this pi does not have.
		}
	};

	on("session_start", (e, ctx) => {
		inputs.clear();
		void send(ctx, "SessionStart", { source: String(e?.reason ?? "startup") });
	});
	// One run per prompt (a retry is a new run): working again.
	on("agent_start", (_e, ctx) => void send(ctx, "UserPromptSubmit"));
	on("tool_execution_start", (e, ctx) => {
		const input = toolInput(e?.args);
		if (inputs.size > 256) inputs.clear();
		inputs.set(String(e?.toolCallId), input);
		void send(ctx, "PreToolUse", { tool_name: String(e?.toolName ?? ""), tool_input: input });
	});
	on("tool_execution_end", (e, ctx) => {
		const input = inputs.get(String(e?.toolCallId)) ?? {};
		inputs.delete(String(e?.toolCallId));
		void send(ctx, "PostToolUse", { tool_name: String(e?.toolName ?? ""), tool_input: input });
	});
	on("session_before_compact", (e, ctx) => {
		// A cancelled compaction (Esc) ends without session_compact: its
		// signal is the only word of it.
		try {
			e?.signal?.addEventListener?.("abort", () => void send(ctx, "PostCompact"), { once: true });
		} catch {}
		void send(ctx, "PreCompact");
	});
	on("session_compact", (_e, ctx) => void send(ctx, "PostCompact"));
	on("agent_end", (e, ctx) => {
		const last = lastAssistant(e?.messages);
		if (last?.stopReason === "aborted") {
			void send(ctx, "Stop", { is_interrupt: true });
		} else if (last?.stopReason === "error") {
			void send(ctx, "StopFailure", { error: "api_error" });
		} else {
			void send(ctx, "Stop");
		}
	});
	// quit, and the old session of /new, /resume, /fork. pi sends nothing
	// on SIGTERM or SIGHUP: the tab's end says it then.
	on("session_shutdown", (e, ctx) => send(ctx, "SessionEnd", { reason: String(e?.reason ?? "") }));
}
