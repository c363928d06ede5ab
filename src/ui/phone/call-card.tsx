import { useEffect, useRef, useState } from "preact/hooks";
import type { CallControl } from "../../cc";
import type { ShortcutAction } from "../../session";
import type { Call } from "../../softphone";
import { afterStart } from "../after-start";
import {
  CloseIcon,
  HangUpIcon,
  KeypadIcon,
  MicIcon,
  MicOffIcon,
  PauseIcon,
  PhoneIcon,
  PlayIcon,
  SwapIcon,
  TransferIcon,
} from "../icons";
import { withEnglishPanels } from "../i18n";
import { lazy } from "../lazy";
import { useModel, usePhone } from "../model/model";
import { formatDuration } from "../shared/format";
import { Avatar } from "../shell/identity";
import {
  ccStateText,
  displayTarget,
  partyLines,
  stateText,
  supervisedText,
  supervisingText,
  whoOf,
} from "../words/call-words";
import { act } from "./act";
import { CallNotes } from "./call-notes";
import { CallerStoryLine } from "./story-line";
import { inCall } from "./in-call-parts";
import { QueueLine } from "./queue-line";

// The call center's transfer panel comes when first opened.
const CcTransferPanel = lazy(() => withEnglishPanels(import("./cc-transfer-panel")).then((m) => m.CcTransferPanel));
// What only an answered call shows (its keypad and transfer panels, its quality) comes once the
// page is ready for calls: a ringing call's card and its Answer do not wait for it.
const DtmfPanel = lazy(() => inCall().then((m) => m.DtmfPanel));
const TransferPanel = lazy(() => inCall().then((m) => m.TransferPanel));
const QualityMark = lazy(() => inCall().then((m) => m.QualityMark));
const QualityWarning = lazy(() => inCall().then((m) => m.QualityWarning));
void afterStart
  .then(() => Promise.all([DtmfPanel, TransferPanel, QualityMark, QualityWarning].map((c) => c.preload())))
  .catch(() => undefined);

/** The controls a keyboard shortcut (settings) also works. */
const SHORTCUTS: Partial<Record<CallControl, ShortcutAction>> = {
  answer: "answer",
  "hang-up": "hangup",
  hold: "hold",
  resume: "hold",
  mute: "mute",
};

type Panel = "keypad" | "transfer" | "cc-transfer" | null;

/**
 * Safe hands: the second click of a double-click (the browser counts it by the system's
 * double-click time and distance) never lands on a control that appeared after the first: Mute
 * takes Answer's place a moment after Answer is pressed. Controls present before the press, and
 * any single click, work as ever.
 */
function useSafeClicks(controls: readonly CallControl[]) {
  const shown = useRef(new Map<CallControl, number>());
  const lastPress = useRef(-Infinity);
  const at = performance.now();
  const present = new Set(controls);
  for (const c of shown.current.keys()) if (!present.has(c)) shown.current.delete(c);
  for (const c of present) if (!shown.current.has(c)) shown.current.set(c, at);
  return (control: CallControl, run: () => void) => (e: MouseEvent) => {
    const tookThePlace = (shown.current.get(control) ?? -Infinity) > lastPress.current;
    if (tookThePlace && e.detail > 1) return;
    lastPress.current = performance.now();
    run();
  };
}

export function CallCard({
  call,
  compact = false,
  minimal = false,
}: {
  call: Call;
  compact?: boolean;
  minimal?: boolean;
}) {
  const { t, agent, settings } = useModel();
  const p = usePhone();
  const m = t.value.phone;
  const [panel, setPanel] = useState<Panel>(null);
  const answerRef = useRef<HTMLButtonElement>(null);
  const cardRef = useRef<HTMLElement>(null);
  // A control's shortcut (settings), said in its tooltip and to assistive technology.
  const keys = settings.value.shortcuts;
  const shortcutOf = (control: CallControl): string => {
    const action = SHORTCUTS[control];
    return action ? keys[action] : "";
  };
  const tip = (control: CallControl, text: string) => {
    const k = shortcutOf(control);
    return k ? `${text} (${k})` : compact ? text : undefined;
  };
  const actions = p.actions;
  // What can be done with the call, and whether the platform or the phone does it, is the agent session's to say.
  const view = p.view(call);
  const cc = view.cc;
  const can = (control: CallControl) => view.controls.includes(control);
  const safe = useSafeClicks(view.controls);
  const party = cc?.party;
  const { name, number } = party
    ? { name: party.name || party.number, number: party.name && party.number !== party.name ? party.number : "" }
    : partyLines(call, t.value);
  const who = party ? name : whoOf(call, t.value);
  const talkingElsewhere = p.live.value.some(
    (c) => c.id !== call.id && (c.state === "active" || c.state === "remote-held" || c.state === "connecting"),
  );
  const answered = call.state === "active" || call.state === "held" || call.state === "remote-held";
  const ringingHere = call.direction === "inbound" && call.state === "ringing";
  const now = p.now.value;

  // A ringing call takes the focus when nothing else has it, so the keyboard lands on Answer.
  useEffect(() => {
    if (ringingHere && !call.autoAnswer && (!document.activeElement || document.activeElement === document.body))
      answerRef.current?.focus();
  }, [ringingHere]);
  useEffect(() => {
    if (!answered) setPanel(null);
  }, [answered]);
  // Once answered (by click or shortcut), the keyboard is on the call: Answer is gone, and the
  // focus would fall to the page. The card takes it; the next Tab is its first control.
  // (A call that rang here goes on through its answering to answered.)
  const rang = useRef(false);
  useEffect(() => {
    if (ringingHere) rang.current = true;
    else if (answered && rang.current) {
      rang.current = false;
      // Unless the agent is typing elsewhere (a field of the page keeps its focus).
      const focus = document.activeElement;
      const typing = focus?.matches("input, textarea, select, [contenteditable]") && !cardRef.current?.contains(focus);
      if (!typing) cardRef.current?.focus();
    } else if (call.state === "ended") rang.current = false;
  }, [ringingHere, answered, call.state]);

  const since = call.answeredAt ?? call.startedAt;
  const timer =
    call.state === "ended"
      ? call.answeredAt && call.endedAt
        ? // Rounded, as the platform's records round their talk time: the history says the same.
          formatDuration(Math.round((call.endedAt - call.answeredAt) / 1000))
        : ""
      : formatDuration((now - since) / 1000);
  const consultOf = call.consultForCallId ? p.calls.value.calls.find((c) => c.id === call.consultForCallId) : undefined;
  const consultWith = call.consultCallId ? p.calls.value.calls.find((c) => c.id === call.consultCallId) : undefined;
  const tr = call.transfer;
  const rr = call.referRequest;
  // A leg taken back after a reload, or a click-to-dial's, answers by itself without it being news.
  const auto =
    call.autoAnswer && call.state === "ringing" && view.answeredAutomatically
      ? Math.max(0, Math.ceil((call.autoAnswer.answerAt - now) / 1000))
      : null;
  const muted = call.muted && call.state !== "ended" && call.state !== "ringing";

  const label = (text: string) => (compact ? undefined : <span>{text}</span>);
  /** Closes the open panel (Escape in it, or its action taken): the keyboard goes back to the control that opened it. */
  const closePanel = () => {
    cardRef.current?.querySelector<HTMLElement>(".call-actions [aria-expanded=true]")?.focus();
    setPanel(null);
  };
  const button = (
    control: CallControl,
    text: string,
    icon: preact.JSX.Element,
    onClick: () => void,
    cls = "secondary",
    extra: Record<string, unknown> = {},
  ) => (
    <button
      type="button"
      class={`call-action ${cls}`}
      aria-label={text}
      title={tip(control, text)}
      aria-keyshortcuts={shortcutOf(control) || undefined}
      onClick={safe(control, onClick)}
      {...extra}
    >
      {icon}
      {label(text)}
    </button>
  );

  if (minimal) {
    return (
      <article
        class={`call-card compact minimal state-${call.state}`}
        aria-label={ringingHere ? m.incomingFrom(who) : m.callWith(who)}
        data-testid="call"
        data-state={call.state}
        data-direction={call.direction}
      >
        <div class="call-head">
          <div class="call-who">
            <span class="call-name">{name}</span>
            <span class="call-state" data-testid="call-state">
              {stateText(call, t.value, ringingHere && talkingElsewhere)}
            </span>
          </div>
        </div>
        <div class="call-actions">
          {can("answer") && (
            <>
              {button("answer", m.answer, <PhoneIcon />, () => act(actions.answer(call.id)), "answer")}
              {button("reject", m.reject, <HangUpIcon />, () => act(actions.reject(call.id)), "danger")}
              {button("busy", m.busy, <CloseIcon />, () => act(actions.reject(call.id, "busy")))}
            </>
          )}
          {/* In brief, a call held here: back to it. */}
          {call.held && can("swap") && button("swap", m.swap, <SwapIcon />, () => act(actions.swap(call.id)), "ctl")}
          {call.held &&
            can("resume") &&
            button("resume", m.resume, <PlayIcon />, () => act(actions.resume(call.id)), "ctl")}
        </div>
      </article>
    );
  }

  return (
    <article
      ref={cardRef}
      tabIndex={-1}
      class={`call-card state-${call.state}${compact ? " compact" : ""}`}
      aria-label={ringingHere ? m.incomingFrom(who) : m.callWith(who)}
      data-testid="call"
      data-state={call.state}
      data-direction={call.direction}
    >
      <div class="call-head">
        {!compact &&
          (call.remote.name ? (
            <Avatar name={name} />
          ) : (
            <span class="avatar" aria-hidden="true">
              <PhoneIcon />
            </span>
          ))}
        <div class="call-who">
          {/* A long name is cut in the bar and the side panel: its tooltip has it whole; the full page wraps it. */}
          <span class="call-name" title={name}>
            {name}
          </span>
          {number && <span class="call-number">{number}</span>}
        </div>
        {/* In the bar a ringing queue call shows its queue and wait where its state and ring time go. */}
        {compact && ringingHere && cc?.queue ? (
          <QueueLine call={call} cc={cc} compact />
        ) : (
          <div class="call-status">
            <span class="call-state" data-testid="call-state">
              {cc
                ? ccStateText(call, cc, t.value, ringingHere && talkingElsewhere)
                : stateText(call, t.value, ringingHere && talkingElsewhere)}
            </span>
            {timer && (
              <span class="call-timer" role="timer" aria-hidden="true">
                {timer}
              </span>
            )}
            {!compact && answered && <QualityMark quality={call.quality} compact={false} />}
          </div>
        )}
        {/* The bar has one line: the mark's bars stand beside the timer. From the answer on, measuring until the first figures. */}
        {compact && answered && <QualityMark quality={call.quality} compact />}
      </div>

      {muted && !compact && (
        <p class="call-muted" data-testid="call-muted">
          <MicOffIcon />
          {m.mutedBanner}
        </p>
      )}
      {((muted && compact) ||
        (call.remoteHeld && !cc?.held) ||
        auto !== null ||
        (view.answeredAutomatically && answered)) && (
        <div class="call-badges">
          {muted && compact && (
            <span class="badge danger" data-testid="call-muted">
              {m.mutedBadge}
            </span>
          )}
          {/* The platform's hold reaches the phone as the far side's: the card says which. */}
          {call.remoteHeld && !cc?.held && call.state !== "ended" && (
            <span class="badge warn" data-testid="remote-hold">
              {m.remoteHeldBadge}
            </span>
          )}
          {auto !== null && <span class="badge info">{m.autoAnswerIn(auto)}</span>}
          {view.answeredAutomatically && answered && !compact && <span class="badge">{m.autoAnswered}</span>}
        </div>
      )}

      {answered && <QualityWarning quality={call.quality} now={now} />}
      {cc && !compact && <QueueLine call={call} cc={cc} />}
      {agent && <CallerStoryLine call={call} agent={agent} compact={compact} />}
      {cc?.supervising && (
        <p class="call-note supervision-note" data-testid="cc-supervising" data-mode={cc.supervising.mode}>
          {supervisingText(cc.supervising, t.value)}
        </p>
      )}
      {cc?.supervised && (
        <p class="call-note supervision-note" data-testid="cc-supervised" data-mode={cc.supervised.mode}>
          {supervisedText(cc.supervised, t.value)}
        </p>
      )}
      {cc?.held && call.state !== "ended" && (
        <p class="call-note" data-testid="cc-held">
          {t.value.agent.heldByPlatform}
        </p>
      )}
      {cc?.consult && call.state !== "ended" && (
        <p class="call-note" role="status" data-testid="cc-consult">
          {cc.consult.answered
            ? t.value.agent.consulting(cc.consult.target)
            : t.value.agent.consultRinging(cc.consult.target)}
        </p>
      )}
      {consultOf && !compact && call.state !== "ended" && (
        <p class="call-note">{m.consultFor(whoOf(consultOf, t.value))}</p>
      )}
      {consultWith && !compact && call.state !== "ended" && (
        <p class="call-note">{m.consulting(whoOf(consultWith, t.value))}</p>
      )}
      {tr && call.state !== "ended" && (
        <p class="call-note" role="status">
          {m.transferState[tr.state](displayTarget(tr.target))}
        </p>
      )}

      {rr?.state === "pending" && (
        <div class="call-refer">
          <p>{m.referAsk(displayTarget(rr.target))}</p>
          <div class="call-actions">
            <button type="button" class="primary" onClick={() => act(actions.acceptRefer(call.id))}>
              {m.acceptRefer}
            </button>
            <button type="button" class="secondary" onClick={() => act(actions.rejectRefer(call.id))}>
              {m.rejectRefer}
            </button>
          </div>
        </div>
      )}

      <div class="call-actions">
        {can("answer") && (
          <>
            <button
              type="button"
              ref={answerRef}
              class="call-action answer"
              aria-label={m.answer}
              title={tip("answer", m.answer)}
              aria-keyshortcuts={shortcutOf("answer") || undefined}
              onClick={safe("answer", () => act(actions.answer(call.id)))}
            >
              <PhoneIcon />
              <span>{m.answer}</span>
            </button>
            {button("reject", m.reject, <HangUpIcon />, () => act(actions.reject(call.id)), "danger")}
            {button("busy", m.busy, <CloseIcon />, () => act(actions.reject(call.id, "busy")))}
          </>
        )}
        {can("mute") &&
          button(
            "mute",
            call.muted ? m.unmute : m.mute,
            call.muted ? <MicOffIcon /> : <MicIcon />,
            () => act(actions.mute(call.id, !call.muted)),
            call.muted ? "ctl on" : "ctl",
          )}
        {can("swap") && button("swap", m.swap, <SwapIcon />, () => act(actions.swap(call.id)), "ctl")}
        {/* The phone's own hold shows its re-INVITE under way; the platform's is confirmed by the platform. */}
        {can("resume") &&
          button(
            "resume",
            m.resume,
            <PlayIcon />,
            () => act(actions.resume(call.id)),
            "ctl on",
            view.via === "phone" ? { "aria-disabled": call.holdPending || undefined } : {},
          )}
        {can("hold") &&
          button(
            "hold",
            m.hold,
            <PauseIcon />,
            () => act(actions.hold(call.id)),
            "ctl",
            view.via === "phone" ? { "aria-disabled": call.holdPending || undefined } : {},
          )}
        {can("dtmf") &&
          button("dtmf", m.keypad, <KeypadIcon />, () => setPanel(panel === "keypad" ? null : "keypad"), "ctl", {
            "aria-expanded": panel === "keypad",
          })}
        {can("transfer") &&
          (view.via === "platform"
            ? button(
                "transfer",
                m.transfer,
                <TransferIcon />,
                () => setPanel(panel === "cc-transfer" ? null : "cc-transfer"),
                "ctl",
                { "aria-expanded": panel === "cc-transfer" },
              )
            : button(
                "transfer",
                m.transfer,
                <TransferIcon />,
                () => setPanel(panel === "transfer" ? null : "transfer"),
                "ctl",
                {
                  "aria-expanded": panel === "transfer",
                },
              ))}
        {can("complete-consult") && (
          <>
            {button(
              "complete-consult",
              view.via === "platform" ? t.value.agent.completeTransfer : m.completeTransfer,
              <TransferIcon />,
              () => act(actions.completeConsult(call.id)),
              "primary xfer",
            )}
            {button(
              "cancel-consult",
              view.via === "platform" ? t.value.agent.cancelConsult : m.cancelTransfer,
              <CloseIcon />,
              () => act(actions.cancelConsult(call.id)),
              "secondary xfer",
            )}
          </>
        )}
        {can("hang-up") &&
          button("hang-up", m.hangup, <HangUpIcon />, () => act(actions.hangUp(call.id)), "danger hangup")}
        {can("call-back") &&
          button("call-back", m.callBack, <PhoneIcon />, () => act(actions.dial(party?.number || call.remote.number)))}
        {can("dismiss") && button("dismiss", m.dismiss, <CloseIcon />, () => act(actions.dismiss(call.id)), "ghost")}
      </div>

      {/* Notes while talking (the bar has no room): the agent session keeps them with the conversation. */}
      {answered && !compact && agent && agent.phase.value === "on" && !cc?.supervising && (
        <CallNotes call={call} agent={agent} />
      )}
      {panel === "keypad" && <DtmfPanel call={call} compact={compact} />}
      {panel === "transfer" && <TransferPanel call={call} compact={compact} onDone={closePanel} />}
      {panel === "cc-transfer" && <CcTransferPanel call={call} compact={compact} onDone={closePanel} />}
    </article>
  );
}
