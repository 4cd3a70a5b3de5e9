// logwatch: omp extension, written by `logwatch hooks install --agent omp`.
// `logwatch hooks uninstall --agent omp` removes it; install rewrites it (do
// not edit it: a changed file is no longer logwatch's to update).
//
// It forwards omp's lifecycle events to the logwatch daemon as the hook
// events logwatch knows (`logwatch hook --agent omp`, the payload on
// stdin), one after the other, each in a detached process omp never waits
// for (the session's end excepted, for at most 200 ms). It never throws into
// omp: with no daemon, or no binary, omp loses nothing.
// ---- How the module reaches logwatch (parsers/hookmodule/sender.ts: the
// same in every agent's module logwatch writes).
import { spawn } from "node:child_process";

const LOGWATCH = "__LOGWATCH_BIN__";
const AGENT = "omp";

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

// omp's tool that asks the user a question and waits for the answer.
const QUESTION_TOOL = "ask";

// question is the ask tool's first question, bounded, for the waiting detail.
function question(args: any): string {
	const q = args?.questions?.[0]?.question ?? args?.question;
	return typeof q === "string" ? q.slice(0, MAX_FIELD) : "";
}

export default function (omp: any) {
	// The tools' inputs by call id, for the approval and the tool's end.
	const inputs = new Map<string, Record<string, string>>();
	const remember = (id: unknown, args: unknown) => {
		if (inputs.size > 256) inputs.clear();
		inputs.set(String(id), toolInput(args));
	};
	const on = guarded(omp);

	// omp's session_start carries no reason.
	on("session_start", (_e, ctx) => {
		inputs.clear();
		void send(ctx, "SessionStart", { source: "startup" });
	});
	// One run per prompt: working again.
	on("agent_start", (_e, ctx) => void send(ctx, "UserPromptSubmit"));
	// omp asks for the call before it runs it (tool_call comes before the
	// answer's message_end): only its input is kept here.
	on("tool_call", (e) => void remember(e?.toolCallId, e?.input));
	on("tool_execution_start", (e, ctx) => {
		remember(e?.toolCallId, e?.args);
		const name = String(e?.toolName ?? "");
		if (name === QUESTION_TOOL) {
			// The ask tool waits on the user's answer until it ends.
			void send(ctx, "Notification", { notification_type: "elicitation_dialog", message: question(e?.args) });
			return;
		}
		void send(ctx, "PreToolUse", { tool_name: name, tool_input: inputs.get(String(e?.toolCallId)) ?? {} });
	});
	// The approval dialog (--approval-mode always-ask, or a tool's policy):
	// waiting until the user answers; either answer lets the call go on.
	on("tool_approval_requested", (e, ctx) => {
		const input = inputs.get(String(e?.toolCallId)) ?? {};
		void send(ctx, "PermissionRequest", { tool_name: String(e?.toolName ?? ""), tool_input: input });
	});
	on("tool_approval_resolved", (e, ctx) => {
		const input = inputs.get(String(e?.toolCallId)) ?? {};
		void send(ctx, "PostToolUse", { tool_name: String(e?.toolName ?? ""), tool_input: input });
	});
	on("tool_execution_end", (e, ctx) => {
		const input = inputs.get(String(e?.toolCallId)) ?? {};
		inputs.delete(String(e?.toolCallId));
		void send(ctx, "PostToolUse", { tool_name: String(e?.toolName ?? ""), tool_input: input });
	});
	const compacting = (e: any, ctx: any) => {
		// A cancelled compaction (Esc) ends without session_compact: its
		// signal is the only word of it.
		try {
			e?.signal?.addEventListener?.("abort", () => void send(ctx, "PostCompact"), { once: true });
		} catch {}
		void send(ctx, "PreCompact");
	};
	on("session_before_compact", compacting);
	on("session_compact", (_e, ctx) => void send(ctx, "PostCompact"));
	on("auto_compaction_start", (_e, ctx) => void send(ctx, "PreCompact", { trigger: "auto" }));
	on("auto_compaction_end", (_e, ctx) => void send(ctx, "PostCompact", { trigger: "auto" }));
	on("agent_end", (e, ctx) => {
		if (e?.willContinue) return; // a retry or a continuation follows at once
		const last = lastAssistant(e?.messages);
		if (last?.stopReason === "aborted") {
			void send(ctx, "Stop", { is_interrupt: true });
		} else if (last?.stopReason === "error") {
			void send(ctx, "StopFailure", { error: "api_error" });
		} else {
			void send(ctx, "Stop");
		}
	});
	// Ctrl+D and SIGTERM (after omp wrote its session_exit entry).
	on("session_shutdown", (_e, ctx) => sendNow(ctx, "SessionEnd", { reason: "exit" }));
}
