import { useEffect, useId, useRef, useState } from "preact/hooks";
import { parseDialInput, type Call } from "../../softphone";
import { useModel, usePhone } from "../model/model";
import { Field } from "../shared/field";
import { dialProblemText } from "../words/call-words";
import { act } from "./act";
import { Keypad } from "./keypad";

// What only an answered call shows, loaded once the page is ready for calls (see call-card.tsx):
// the keypad and the transfer panel, the call's quality; and the dial pad's keypad.
export { QualityMark, QualityWarning } from "./call-quality";
export { Keypad };

export function DtmfPanel({ call, compact }: { call: Call; compact: boolean }) {
  const { t } = useModel();
  const p = usePhone();
  const send = (key: string) => act(p.actions.sendDtmf(call.id, key));
  return (
    <div
      class={`call-panel${compact ? " popover-panel" : ""}`}
      onKeyDown={(e) => {
        // Typing digits while the keypad has focus sends them, as on a desk phone.
        if (/^[0-9*#A-Da-d]$/.test(e.key) && !(e.target instanceof HTMLInputElement)) {
          e.preventDefault();
          send(e.key.toUpperCase());
        }
      }}
    >
      <Keypad label={t.value.phone.keypad} onKey={send} />
      <p class="dtmf-sent" aria-live="off">
        <span class="sr-only">{t.value.phone.dtmfSent}: </span>
        {call.dtmf.sent}
      </p>
    </div>
  );
}

export function TransferPanel({ call, compact, onDone }: { call: Call; compact: boolean; onDone: () => void }) {
  const { t, announce } = useModel();
  const p = usePhone();
  const m = t.value.phone;
  const id = useId();
  const [target, setTarget] = useState("");
  const [problem, setProblem] = useState("");
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);

  const go = (kind: "blind" | "consult") => {
    const parsed = parseDialInput(target);
    if (!parsed.ok) {
      const text = dialProblemText(parsed.problem, t.value);
      setProblem(text);
      announce(text);
      return;
    }
    const to = { kind: "address", address: target } as const;
    act(kind === "blind" ? p.actions.transfer(call.id, to) : p.actions.consult(call.id, to));
    onDone();
  };

  return (
    <div
      class={`call-panel transfer-panel${compact ? " popover-panel" : ""}`}
      onKeyDown={(e) => e.key === "Escape" && (e.stopPropagation(), onDone())}
    >
      <Field id={id} label={m.transferTo} problem={problem} bare>
        {(control) => (
          <input
            {...control}
            ref={field}
            type="tel"
            autoComplete="off"
            value={target}
            placeholder={m.numberPlaceholder}
            onInput={(e) => {
              setTarget(e.currentTarget.value);
              setProblem("");
            }}
            onKeyDown={(e) => {
              if (e.key === "Enter") go("blind");
            }}
          />
        )}
      </Field>
      <div class="call-actions">
        <button type="button" class="primary" onClick={() => go("blind")}>
          {m.transferNow}
        </button>
        <button type="button" class="secondary" onClick={() => go("consult")}>
          {m.consult}
        </button>
      </div>
    </div>
  );
}
