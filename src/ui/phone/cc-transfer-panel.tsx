import { useEffect, useId, useRef, useState } from "preact/hooks";
import type { CallTarget } from "../../cc";
import { parseDialInput, type Call } from "../../softphone";
import { useAgent, useModel } from "../model/model";
import { Field } from "../shared/field";
import { dialProblemText } from "../words/call-words";

/** What the panel offers to choose from; what was typed in the number field is a number here. */
type TargetKind = Exclude<CallTarget["kind"], "address">;

/**
 * Transfer, consult or three-way through the platform: to an agent of the agent's queues (with
 * their status), to a queue, or to a number.
 */
export function CcTransferPanel({ call, compact, onDone }: { call: Call; compact: boolean; onDone: () => void }) {
  const { t, announce } = useModel();
  const a = useAgent();
  const m = t.value.agent;
  const id = useId();
  const s = a.queues.value;
  const [kind, setKind] = useState<TargetKind>("agent");
  const [agent, setAgent] = useState("");
  const [queue, setQueue] = useState(s.queues[0]?.name ?? "");
  const [number, setNumber] = useState("");
  const [problem, setProblem] = useState("");
  const first = useRef<HTMLSelectElement>(null);
  // Until the first list arrives, "no other agents" would not be true yet.
  const [loading, setLoading] = useState(!s.colleagues.length);
  useEffect(() => {
    a.act(a.actions.loadColleagues().finally(() => setLoading(false)));
    first.current?.focus();
  }, []);

  const target = (): CallTarget | undefined => {
    if (kind === "queue") return queue ? { kind, name: queue } : undefined;
    if (kind === "agent") return agent ? { kind, number: agent } : undefined;
    const parsed = parseDialInput(number);
    if (!parsed.ok || parsed.target.kind !== "number") {
      const text = parsed.ok
        ? t.value.phone.dialProblem["invalid-sip-address"]
        : dialProblemText(parsed.problem, t.value);
      setProblem(text);
      announce(text);
      return undefined;
    }
    return { kind: "number", number: parsed.target.number };
  };
  const go = (what: "transfer" | "consult" | "threeWay") => {
    const to = target();
    if (!to) return;
    const actions = a.actions;
    a.act(
      what === "transfer"
        ? actions.transfer(call.id, to)
        : what === "consult"
          ? actions.consult(call.id, to)
          : actions.threeWay(call.id, to),
    );
    onDone();
  };

  return (
    <div
      class={`call-panel transfer-panel cc-transfer${compact ? " popover-panel" : ""}`}
      role="group"
      aria-label={m.transferTitle}
      onKeyDown={(e) => e.key === "Escape" && (e.stopPropagation(), onDone())}
    >
      <label for={`${id}-k`}>{m.targetKind}</label>
      <select id={`${id}-k`} ref={first} value={kind} onChange={(e) => setKind(e.currentTarget.value as TargetKind)}>
        {(["agent", "queue", "number"] as const).map((k) => (
          <option key={k} value={k}>
            {m.targetKinds[k]}
          </option>
        ))}
      </select>
      {kind === "agent" && (
        <>
          <label for={`${id}-a`}>{m.agentTarget}</label>
          {s.colleagues.length ? (
            <select id={`${id}-a`} value={agent} onChange={(e) => setAgent(e.currentTarget.value)}>
              <option value="">{m.chooseAgent}</option>
              {s.colleagues.map((c) => (
                <option key={c.number} value={c.number}>
                  {m.colleague(c.name || c.number, c.number, c.status)}
                </option>
              ))}
            </select>
          ) : (
            <p class="field-note">{loading ? m.loadingColleagues : m.noColleagues}</p>
          )}
        </>
      )}
      {kind === "queue" && (
        <>
          <label for={`${id}-q`}>{m.queueTarget}</label>
          <select id={`${id}-q`} value={queue} onChange={(e) => setQueue(e.currentTarget.value)}>
            {s.queues.map((q) => (
              <option key={q.name} value={q.name}>
                {q.name}
              </option>
            ))}
          </select>
        </>
      )}
      {kind === "number" && (
        <>
          <Field id={`${id}-n`} label={m.numberTarget} problem={problem} bare>
            {(control) => (
              <input
                {...control}
                type="tel"
                autoComplete="off"
                value={number}
                onInput={(e) => {
                  setNumber(e.currentTarget.value);
                  setProblem("");
                }}
                onKeyDown={(e) => {
                  if (e.key === "Enter") go("transfer");
                }}
              />
            )}
          </Field>
        </>
      )}
      <div class="call-actions">
        <button type="button" class="primary" onClick={() => go("transfer")}>
          {m.transferNow}
        </button>
        {kind !== "queue" && (
          <>
            <button type="button" class="secondary" onClick={() => go("consult")}>
              {m.consult}
            </button>
            <button type="button" class="secondary" onClick={() => go("threeWay")}>
              {m.threeWay}
            </button>
          </>
        )}
      </div>
    </div>
  );
}
