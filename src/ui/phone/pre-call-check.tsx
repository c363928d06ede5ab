import { useEffect, useId, useState } from "preact/hooks";
import { echoVerdict, runEchoTest, type EchoTestStage } from "../../softphone/echo-test";
import { MicrophoneMeter } from "../../softphone/microphone-meter";
import { buildDiagnosticsBundle, diagnosticsFile } from "../../session/diagnostics-bundle";
import { PhoneError } from "../../softphone";
import type { Messages } from "../i18n";
import { useModel, usePhone } from "../model/model";

/** Why a check could not run, in words. */
function checkProblem(e: unknown, t: Messages): string {
  const info = PhoneError.infoOf(e);
  if (info.kind === "microphone") return t.phone.notice.microphone(info.detail ?? "");
  if (info.kind === "not-connected") return t.precall.echoFailed(t.phone.reason.transport);
  return t.precall.echoFailed(t.precall.echoNoAnswer);
}

/**
 * The pre-call check, in the devices panel: a level meter on the microphone, a test sound on the
 * speaker, an echo test call that measures the round trip and how loud the microphone comes
 * back, and the diagnostics file for IT staff. Loaded with the devices panel, on demand.
 */
export function PreCallCheck() {
  const { t } = useModel();
  const m = t.value.precall;
  const id = useId();
  return (
    <section class="precall" aria-labelledby={`${id}-title`} data-testid="pre-call-check">
      <h3 id={`${id}-title`}>{m.title}</h3>
      <MicrophoneAndSpeaker />
      <EchoTest />
      <DiagnosticsDownload />
    </section>
  );
}

/** The microphone's level meter (on while the test runs) and a test sound on the speaker. */
function MicrophoneAndSpeaker() {
  const { t } = useModel();
  const m = t.value.precall;
  const p = usePhone();
  const id = useId();
  const [meter, setMeter] = useState<MicrophoneMeter | null>(null);
  const [level, setLevel] = useState(-90);
  const [problem, setProblem] = useState("");
  useEffect(() => {
    if (!meter) return;
    const timer = setInterval(() => setLevel(Math.round(meter.level())), 100);
    return () => {
      clearInterval(timer);
      meter.stop();
    };
  }, [meter]);
  const toggle = () => {
    if (meter) {
      setMeter(null);
      return;
    }
    setProblem("");
    MicrophoneMeter.open(p.phone).then(setMeter, (e: unknown) => setProblem(checkProblem(e, t.value)));
  };
  return (
    <div class="precall-mic">
      <button type="button" class="secondary" aria-pressed={!!meter} onClick={toggle}>
        {meter ? m.micStop : m.micStart}
      </button>
      <button type="button" class="secondary" onClick={() => p.testSpeaker()}>
        {m.testSpeaker}
      </button>
      {meter && (
        <>
          <span class="precall-meter">
            <label for={`${id}-meter`}>{m.micLevel}</label>
            <meter
              id={`${id}-meter`}
              min={-60}
              max={0}
              low={-40}
              high={-6}
              optimum={-20}
              value={Math.max(-60, level)}
              data-testid="mic-meter"
            />
            <span class="precall-figure">{m.micDb(level)}</span>
          </span>
          <p class="field-note">{m.micHint}</p>
        </>
      )}
      {problem && <p class="field-note is-problem">{problem}</p>}
    </div>
  );
}

type EchoState = { stage: EchoTestStage } | { text: string } | null;

function EchoTest() {
  const { t, settings, announce } = useModel();
  const m = t.value.precall;
  const p = usePhone();
  const [state, setState] = useState<EchoState>(null);
  const number = settings.value.echoTestNumber;
  const busy = p.live.value.length > 0;
  const running = !!state && "stage" in state;
  const run = () => {
    setState({ stage: "calling" });
    runEchoTest(p.phone, number, (stage) => setState({ stage }))
      .then((r) => {
        const v = echoVerdict(r);
        return m.echoResult({
          ...(r.roundTripMs !== undefined ? { ms: r.roundTripMs } : {}),
          delay: v.delay,
          db: r.heardBackDbfs,
          level: v.level,
        });
      })
      .catch((e: unknown) => checkProblem(e, t.value))
      .then((text) => {
        setState({ text });
        announce(text);
      });
  };
  return (
    <div class="precall-echo">
      <button
        type="button"
        class="secondary"
        onClick={run}
        aria-disabled={busy || running || undefined}
        disabled={busy || running}
      >
        {m.echo}
      </button>
      <p class="field-note">{busy && !running ? m.echoBusy : m.echoHint(number)}</p>
      {state && (
        <p class="precall-result" role="status" data-testid="echo-result">
          {"stage" in state ? m.echoStage[state.stage] : state.text}
        </p>
      )}
    </div>
  );
}

function DiagnosticsDownload() {
  const { t, sessionStore, settingsStore, pageOrigin, announce } = useModel();
  const m = t.value.precall;
  const p = usePhone();
  const [saved, setSaved] = useState("");
  const download = () => {
    try {
      const bundle = buildDiagnosticsBundle({
        session: sessionStore,
        settings: settingsStore,
        phoneSession: p.session,
        pageOrigin,
      });
      const file = diagnosticsFile(bundle);
      const url = URL.createObjectURL(new Blob([file.text], { type: file.type }));
      const a = document.createElement("a");
      a.href = url;
      a.download = file.name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setSaved(m.downloaded(file.name));
      announce(m.downloaded(file.name));
    } catch (e) {
      console.warn("agentbar: diagnostics bundle failed", e);
      setSaved(m.downloadFailed);
    }
  };
  return (
    <div class="precall-download">
      <button type="button" class="secondary" onClick={download}>
        {m.download}
      </button>
      <p class="field-note">{m.downloadHint}</p>
      {saved && <p class="precall-result">{saved}</p>}
    </div>
  );
}
