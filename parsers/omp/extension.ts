// logwatch: omp extension, written by `logwatch hooks install --agent omp`.
// `logwatch hooks uninstall --agent omp` removes it; install rewrites it (do
// not edit it: a changed file is no longer logwatch's to update).
//
// It forwards omp's lifecycle events to the logwatch daemon as the hook
// events logwatch knows (`logwatch hook --agent omp`, the payload on
// stdin), one after the other, each in a detached process omp never waits
// for (the session's end excepted, for at most 200 ms). It never throws into
// omp: with no daemon, or no binary, omp loses nothing.
// __LOGWATCH_SENDER__ (parsers/hookmodule/sender.ts)

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
	// A tool that failed is a failure. omp gives an extension no word of an
	// abort here (no run signal in its context; the result's text depends
	// on the tool and its executor): its Stop says the run was interrupted.
	on("tool_execution_end", (e, ctx) => {
		const input = inputs.get(String(e?.toolCallId)) ?? {};
		inputs.delete(String(e?.toolCallId));
		const event = e?.isError ? "PostToolUseFailure" : "PostToolUse";
		void send(ctx, event, { tool_name: String(e?.toolName ?? ""), tool_input: input });
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
