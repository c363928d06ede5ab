import { useEffect, useId, useRef, useState } from "preact/hooks";
import { PhoneError, parseDialInput } from "../../softphone";
import type { Messages } from "../i18n";
import { BackspaceIcon, KeypadIcon, PhoneIcon, RedialIcon } from "../icons";
import { useModel, usePhone } from "../model/model";
import { dialProblemText } from "../words/call-words";
import { lazy } from "../lazy";
import { inCall } from "./in-call-parts";

// The keypad comes with what an answered call shows (in-call.tsx), loaded once the page is ready for calls.
const Keypad = lazy(() => inCall().then((m) => m.Keypad));

function dialFailedText(e: unknown, t: Messages): string {
  const m = t.phone.dialFailed;
  if (e instanceof PhoneError) {
    if (e.kind === "not-connected" || e.kind === "too-many-calls" || e.kind === "microphone") return m[e.kind];
    if (e.kind === "invalid-number") return t.phone.dialProblem["invalid-sip-address"];
  }
  return m.other;
}

/**
 * What pasting puts in the field: a phone number loses its spaces, dashes and brackets and a
 * `tel:` link its scheme; a SIP address is kept as `user@host`. Text that cannot be dialled is
 * pasted as it is, and the field says why.
 */
export function normalisePaste(text: string): string {
  const r = parseDialInput(text);
  if (!r.ok) return text.trim();
  return r.target.kind === "number" ? r.target.number : r.target.uri.replace(/^sips?:/, "");
}

/** The number field, Call and Redial, and (optionally) the keypad that types into the field. */
export function DialPad({ compact = false }: { compact?: boolean }) {
  const { t, announce } = useModel();
  const p = usePhone();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [value, setValue] = useState("");
  const [problem, setProblem] = useState("");
  const [keypad, setKeypad] = useState(false);
  const [busy, setBusy] = useState(false);
  const m = t.value.phone;
  const last = p.sessionState.value.lastDialled;

  // "Call back" in the history puts its number here.
  const asked = p.dialText.value;
  useEffect(() => {
    if (!asked) return;
    setValue(asked);
    setProblem("");
    input.current?.focus();
    p.dialText.value = "";
  }, [asked]);

  const fail = (text: string) => {
    setProblem(text);
    announce(text);
  };

  const dial = async (text: string) => {
    const parsed = parseDialInput(text);
    if (!parsed.ok) return fail(dialProblemText(parsed.problem, t.value));
    setProblem("");
    setBusy(true);
    try {
      await p.actions.dial(text);
      setValue("");
    } catch (e) {
      fail(dialFailedText(e, t.value));
    } finally {
      setBusy(false);
    }
  };

  const callButton = (
    <button
      type="button"
      class="call-button"
      aria-label={m.call}
      title={m.call}
      aria-disabled={busy || undefined}
      onClick={() => !busy && void dial(value)}
    >
      <PhoneIcon />
      {!compact && <span aria-hidden="true">{m.call}</span>}
    </button>
  );
  const redialButton = (
    <button
      type="button"
      class="icon-button"
      aria-label={m.redial}
      title={last ? m.redialNumber(last) : m.redial}
      disabled={!last}
      onClick={() => void dial(last)}
    >
      <RedialIcon />
    </button>
  );

  return (
    <div class={`dial-pad${compact ? " compact" : ""}`}>
      <div class="dial-row">
        <label for={id} class="sr-only">
          {m.number}
        </label>
        <input
          id={id}
          ref={input}
          class="dial-input"
          type="tel"
          inputMode="tel"
          autoComplete="off"
          spellcheck={false}
          // The bar gives the field little room: a long hint would show cut off.
          placeholder={compact ? m.numberPlaceholderShort : m.numberPlaceholder}
          value={value}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onInput={(e) => {
            setValue(e.currentTarget.value);
            if (problem) setProblem("");
          }}
          onPaste={(e) => {
            const text = e.clipboardData?.getData("text") ?? "";
            if (!text) return;
            e.preventDefault();
            const el = e.currentTarget;
            const clean = normalisePaste(text);
            const next =
              el.value.slice(0, el.selectionStart ?? el.value.length) +
              clean +
              el.value.slice(el.selectionEnd ?? el.value.length);
            setValue(next);
            const r = parseDialInput(next);
            if (r.ok) setProblem("");
            else fail(dialProblemText(r.problem, t.value));
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              void dial(value);
            }
          }}
        />
        {compact && callButton}
        {compact && redialButton}
      </div>
      {!compact && (
        <div class="dial-actions">
          {callButton}
          {redialButton}
          <button
            type="button"
            class="icon-button"
            aria-label={m.dialPad}
            aria-expanded={keypad}
            title={m.dialPad}
            onClick={() => setKeypad(!keypad)}
          >
            <KeypadIcon />
          </button>
        </div>
      )}
      <p id={`${id}-problem`} class={`field-note${problem ? " is-problem" : ""}`} hidden={compact && !problem}>
        {problem}
      </p>
      {keypad && !compact && (
        <div class="dial-keypad">
          <Keypad label={m.dialPad} onKey={(k) => setValue((v) => v + k)} />
          <button
            type="button"
            class="icon-button backspace"
            aria-label={m.clear}
            title={m.clear}
            onClick={() => setValue((v) => v.slice(0, -1))}
          >
            <BackspaceIcon />
          </button>
        </div>
      )}
    </div>
  );
}
