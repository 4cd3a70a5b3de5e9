// logwatch: pi extension, written by `logwatch hooks install --agent pi`.
// `logwatch hooks uninstall --agent pi` removes it; install rewrites it (do
// not edit it: a changed file is no longer logwatch's to update).
//
// It forwards pi's lifecycle events to the logwatch daemon as the hook
// events logwatch knows (`logwatch hook --agent pi`, the payload on
// stdin), one after the other, each in a detached process pi never waits
// for (the session's end excepted, for at most 200 ms). It never throws into
// pi: with no daemon, or no binary, pi loses nothing.
// __LOGWATCH_SENDER__ (parsers/hookmodule/sender.ts)
import { readFileSync } from "node:fs";

export default function (pi: any) {
	const inputs = new Map<string, Record<string, string>>();
	const on = guarded(pi);
	// pi retries a run whose answer failed by itself (retry below): the
	// failed run's end is then no turn end, and the retry's start no prompt.
	// pi tells extensions neither; a retry that does not start in time (the
	// user's Esc cancelled the backoff) ends the turn as the failure.
	let failed = 0; // the failures pi's retry counted in a row
	let retrying: ReturnType<typeof setTimeout> | undefined;
	const retried = () => {
		clearTimeout(retrying);
		const was = retrying !== undefined;
		retrying = undefined;
		return was;
	};

	on("session_start", (e, ctx) => {
		inputs.clear();
		void send(ctx, "SessionStart", { source: String(e?.reason ?? "startup") });
	});
	// One run per prompt: working again. A retry's run goes on working.
	on("agent_start", (_e, ctx) => {
		if (!retried()) void send(ctx, "UserPromptSubmit");
	});
	on("tool_execution_start", (e, ctx) => {
		const input = toolInput(e?.args);
		if (inputs.size > 256) inputs.clear();
		inputs.set(String(e?.toolCallId), input);
		void send(ctx, "PreToolUse", { tool_name: String(e?.toolName ?? ""), tool_input: input });
	});
	// A tool that failed is a failure; one the user's Esc aborted (pi aborts
	// the run's signal, and the result reads "Command aborted") an
	// interrupt: the log's marker may already have ended the turn, and the
	// tool's end must not look like more work.
	on("tool_execution_end", (e, ctx) => {
		const input = inputs.get(String(e?.toolCallId)) ?? {};
		inputs.delete(String(e?.toolCallId));
		const tool = { tool_name: String(e?.toolName ?? ""), tool_input: input };
		if (!e?.isError) {
			void send(ctx, "PostToolUse", tool);
		} else if (aborted(ctx)) {
			void send(ctx, "PostToolUseFailure", { ...tool, is_interrupt: true });
		} else {
			void send(ctx, "PostToolUseFailure", tool);
		}
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
		retried();
		if (last?.stopReason === "error") {
			const message = String(last?.errorMessage ?? "");
			const delay = retry(ctx, message, failed + 1);
			if (delay >= 0) {
				failed++;
				retrying = setTimeout(() => {
					retrying = undefined;
					failed = 0;
					void send(ctx, "StopFailure", { error: "api_error" });
				}, delay + RETRY_GRACE_MS);
				retrying?.unref?.();
				return;
			}
			if (retry(ctx, message, 1) >= 0) failed = 0; // the last retry failed: pi's count starts again
			void send(ctx, "StopFailure", { error: "api_error" });
			return;
		}
		failed = 0;
		if (last?.stopReason === "aborted") {
			void send(ctx, "Stop", { is_interrupt: true });
		} else {
			void send(ctx, "Stop");
		}
	});
	// quit, and the old session of /new, /resume, /fork. pi sends nothing
	// on SIGTERM or SIGHUP: the tab's end says it then.
	on("session_shutdown", (e, ctx) => {
		retried();
		failed = 0;
		return sendNow(ctx, "SessionEnd", { reason: String(e?.reason ?? "") });
	});
}

// How late after its backoff a retry's run may start before the turn is
// taken for over (pi starts it on the next tick; a loaded machine later).
const RETRY_GRACE_MS = 2000;

// retry is the backoff in ms after which pi 0.73.1 retries a run whose
// answer failed with message, the attempt-th failure in a row, or -1 when
// it does not (AgentSession._isRetryableError, _handleRetryableError): a
// server error, overload, rate limit or lost connection, never a context
// overflow; retry.enabled, retry.maxRetries (3), retry.baseDelayMs (2000,
// doubling) of its settings, the project's over the user's.
function retry(ctx: any, message: string, attempt: number): number {
	const retryable = /overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error|connection.?refused|connection.?lost|websocket.?closed|websocket.?error|other side closed|fetch failed|upstream.?connect|reset before headers|socket hang up|ended without|http2 request did not get a response|timed? out|timeout|terminated|retry delay/i;
	const overflow = /prompt is too long|request_too_large|input is too long for requested model|exceeds the context window|input token count.*exceeds the maximum|maximum prompt length is \d+|reduce the length of the messages|maximum context length is \d+ tokens|exceeds the limit of \d+|exceeds the available context size|greater than the context length|context window exceeds limit|exceeded model token limit|too large for model with \d+ maximum context length|model_context_window_exceeded|prompt too long; exceeded (?:max )?context length|context[_ ]length[_ ]exceeded|too many tokens|token limit exceeded|^4(?:00|13)\s*(?:status code)?\s*\(no body\)/i;
	const notOverflow = /^(Throttling error|Service unavailable):|rate limit|too many requests/i;
	if (!retryable.test(message) || (overflow.test(message) && !notOverflow.test(message))) return -1;
	let enabled = true;
	let max = 3;
	let base = 2000;
	const home = process.env.HOME ?? "";
	const dir = process.env.PI_CODING_AGENT_DIR || `${home}/.pi/agent`;
	for (const file of [`${dir}/settings.json`, `${String(ctx?.cwd ?? process.cwd())}/.pi/settings.json`]) {
		try {
			const r = JSON.parse(readFileSync(file, "utf8"))?.retry;
			if (typeof r?.enabled === "boolean") enabled = r.enabled;
			if (typeof r?.maxRetries === "number") max = r.maxRetries;
			if (typeof r?.baseDelayMs === "number") base = r.baseDelayMs;
		} catch {}
	}
	return enabled && attempt <= max ? base * 2 ** (attempt - 1) : -1;
}

// aborted reports whether the run the event belongs to was aborted.
function aborted(ctx: any): boolean {
	try {
		return ctx?.signal?.aborted === true;
	} catch {
		return false;
	}
}
