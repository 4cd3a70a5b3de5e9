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

export default function (pi: any) {
	const inputs = new Map<string, Record<string, string>>();
	const on = guarded(pi);

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
	on("session_shutdown", (e, ctx) => sendNow(ctx, "SessionEnd", { reason: String(e?.reason ?? "") }));
}

// aborted reports whether the run the event belongs to was aborted.
function aborted(ctx: any): boolean {
	try {
		return ctx?.signal?.aborted === true;
	} catch {
		return false;
	}
}
