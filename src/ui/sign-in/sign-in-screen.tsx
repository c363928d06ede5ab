import type { JSX } from "preact";
import { useId, useLayoutEffect, useRef, useState } from "preact/hooks";
import { checkPlatformAddress } from "../../session/platform-address";
import { Brand } from "../brand";
import type { Messages } from "../i18n";
import { AlertIcon, ChevronIcon, EyeIcon, EyeOffIcon, InfoIcon, RefreshIcon } from "../icons";
import { LanguageSwitch } from "../language-switch";
import type { Layout } from "../layout";
import { useModel } from "../model/model";
import { signInErrorText } from "../words/sign-in-words";

type Field = "login" | "password" | "captcha" | "address";
const FIELDS: readonly Field[] = ["login", "password", "captcha", "address"];
/** What is wrong with a field before anything is sent; kept as keys so a language switch re-words it. */
type Problems = Partial<Record<Field, keyof Messages["check"]>>;

function hostOf(address: string): string {
  const checked = checkPlatformAddress(address);
  return checked.ok && checked.url ? checked.url.replace(/^https?:\/\//, "") : address;
}

export function SignInScreen({ layout }: { layout: Layout }) {
  const model = useModel();
  const t = model.t.value;
  const s = model.session.value;
  const busy = s.status === "signing-in";
  const bar = layout === "bar";

  const [login, setLogin] = useState(s.login);
  const [password, setPassword] = useState("");
  const [address, setAddress] = useState(s.platformUrl);
  const [captcha, setCaptcha] = useState("");
  const [addressOpen, setAddressOpen] = useState(false);
  const [passwordShown, setPasswordShown] = useState(false);
  const [capsLock, setCapsLock] = useState(false);
  const [problems, setProblems] = useState<Problems>({});
  // Shown until the first new attempt fails, so the reason for being here is not lost.
  const [sessionEnded] = useState(s.status === "session-expired");

  const ids = {
    form: useId(),
    login: useId(),
    password: useId(),
    captcha: useId(),
    address: useId(),
    message: useId(),
  };
  const inputs: Record<Field, { current: HTMLInputElement | null }> = {
    login: useRef<HTMLInputElement>(null),
    password: useRef<HTMLInputElement>(null),
    captcha: useRef<HTMLInputElement>(null),
    address: useRef<HTMLInputElement>(null),
  };
  /** The field to focus once it is shown (the address field may still be hidden). */
  const focusNext = useRef<Field | null>(login ? "password" : "login");

  // A refusal moves the agent to the field that fixes it. Layout effects: they run as the refusal
  // is shown, so what the agent starts typing then is not wiped or selected a moment later.
  useLayoutEffect(() => {
    const kind = s.error?.kind;
    if (kind === "wrong-credentials") {
      setPassword("");
      setCaptcha("");
      focusNext.current = "password";
    } else if (kind === "captcha-required") {
      setCaptcha("");
      focusNext.current = "captcha";
    } else if (kind === "unreachable" || kind === "not-a-platform" || kind === "timeout") {
      setAddressOpen(true);
      focusNext.current = "address";
    }
  }, [s.error]);

  useLayoutEffect(() => {
    const input = focusNext.current ? inputs[focusNext.current].current : null;
    if (!input) return;
    input.focus();
    if (document.activeElement === input) {
      focusNext.current = null;
      input.select();
    }
  });

  const submit = (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const found: Problems = {};
    if (!login.trim()) found.login = "loginRequired";
    if (!password) found.password = "passwordRequired";
    if (s.captcha && !captcha.trim()) found.captcha = "captchaRequired";
    if (!checkPlatformAddress(address).ok) found.address = "addressMalformed";
    setProblems(found);
    const first = FIELDS.find((f) => found[f]);
    if (first) {
      if (first === "address") setAddressOpen(true);
      focusNext.current = first;
      const m = t.check[found[first]!];
      model.announce(m);
      return;
    }
    void s.signIn({ login, password, platformUrl: address, ...(s.captcha ? { captcha } : {}) });
  };

  const edit = (field: Field, set: (v: string) => void) => (e: JSX.TargetedEvent<HTMLInputElement>) => {
    set(e.currentTarget.value);
    if (problems[field]) setProblems({ ...problems, [field]: undefined });
  };

  const problemOf = (field: Field) => (problems[field] ? t.check[problems[field]] : null);
  const firstProblem = FIELDS.map(problemOf).find(Boolean) ?? null;
  const errorText = s.error ? signInErrorText(s.error, t, model.language.value) : null;
  // One place for what the agent must know: the refusal, else (in the bar) what to fix, else why they are here.
  const message: { tone: "error" | "info"; text: string } | null = errorText
    ? { tone: "error", text: errorText }
    : bar && firstProblem
      ? { tone: "error", text: firstProblem }
      : sessionEnded && !s.error
        ? { tone: "info", text: t.signIn.sessionEnded }
        : null;

  // In the bar a field's problem is told in the one message slot; elsewhere right under the field.
  const problemId = (field: Field) => (problems[field] ? (bar ? ids.message : `${ids[field]}-problem`) : "");
  const described = (field: Field, extra?: string) =>
    [problemId(field), extra ?? ""].filter(Boolean).join(" ") || undefined;

  const fieldProblem = (field: Field, hint?: string | null) => (
    <p
      class={`field-note ${problems[field] ? "is-problem" : ""}`}
      id={problems[field] ? `${ids[field]}-problem` : `${ids[field]}-hint`}
    >
      {problemOf(field) ?? hint ?? ""}
    </p>
  );

  const loginField = (
    <div class="field">
      <label for={ids.login} class={bar ? "sr-only" : undefined}>
        {t.signIn.login}
      </label>
      <input
        ref={inputs.login}
        id={ids.login}
        name="username"
        autocomplete="username"
        autocapitalize="none"
        spellcheck={false}
        value={login}
        readOnly={busy}
        placeholder={bar ? t.signIn.login : undefined}
        aria-invalid={problems.login ? true : undefined}
        aria-describedby={described("login")}
        onInput={edit("login", setLogin)}
      />
      {!bar && fieldProblem("login")}
    </div>
  );

  const capsKey = (e: KeyboardEvent) => setCapsLock(e.getModifierState?.("CapsLock") ?? false);
  const passwordField = (
    <div class="field">
      <label for={ids.password} class={bar ? "sr-only" : undefined}>
        {t.signIn.password}
      </label>
      <div class="input-with-button">
        <input
          ref={inputs.password}
          id={ids.password}
          name="password"
          type={passwordShown ? "text" : "password"}
          autocomplete="current-password"
          value={password}
          readOnly={busy}
          placeholder={bar ? t.signIn.password : undefined}
          aria-invalid={problems.password ? true : undefined}
          aria-describedby={described("password", capsLock && !bar ? `${ids.password}-hint` : undefined)}
          onInput={edit("password", setPassword)}
          onKeyDown={capsKey}
          onKeyUp={capsKey}
          onBlur={() => setCapsLock(false)}
        />
        <button
          type="button"
          class="icon-button"
          aria-label={t.signIn.showPassword}
          aria-pressed={passwordShown}
          aria-controls={ids.password}
          title={passwordShown ? t.signIn.hidePassword : t.signIn.showPassword}
          onClick={() => setPasswordShown(!passwordShown)}
        >
          {passwordShown ? <EyeOffIcon /> : <EyeIcon />}
        </button>
      </div>
      {!bar && fieldProblem("password", capsLock ? t.signIn.capsLock : null)}
    </div>
  );

  const captchaField = s.captcha && (
    <div class="field captcha">
      <label for={ids.captcha} class={bar ? "sr-only" : undefined}>
        {t.signIn.captcha}
      </label>
      <div class="captcha-row">
        {s.captcha.pictureUrl ? (
          <img
            key={s.captcha.pictureUrl}
            class="captcha-picture"
            src={s.captcha.pictureUrl}
            alt={t.signIn.captchaPicture}
            width={150}
            height={50}
          />
        ) : (
          <span class="captcha-picture is-missing">{t.signIn.captchaMissing}</span>
        )}
        <button
          type="button"
          class="icon-button"
          aria-label={t.signIn.newCaptcha}
          title={t.signIn.newCaptcha}
          onClick={() => void s.newCaptcha()}
        >
          <RefreshIcon />
        </button>
        <input
          ref={inputs.captcha}
          id={ids.captcha}
          name="captcha"
          class="captcha-input"
          autocomplete="off"
          autocapitalize="characters"
          spellcheck={false}
          value={captcha}
          readOnly={busy}
          placeholder={bar ? t.signIn.captchaShort : undefined}
          aria-invalid={problems.captcha ? true : undefined}
          aria-describedby={described("captcha")}
          onInput={edit("captcha", setCaptcha)}
        />
      </div>
      {!bar && fieldProblem("captcha")}
    </div>
  );

  const addressToggle = (
    <button
      type="button"
      class="disclosure"
      aria-expanded={addressOpen}
      aria-controls={`${ids.address}-section`}
      onClick={() => {
        setAddressOpen(!addressOpen);
        if (!addressOpen) focusNext.current = "address";
      }}
    >
      <ChevronIcon class="disclosure-chevron" />
      <span>{t.signIn.platformAddress}</span>
      {!addressOpen && address.trim() && <span class="disclosure-value">{hostOf(address)}</span>}
    </button>
  );

  const addressField = (
    <div class="field address" id={`${ids.address}-section`} hidden={!addressOpen}>
      {/* The disclosure button above already says what this is. */}
      <label for={ids.address} class="sr-only">
        {t.signIn.platformAddress}
      </label>
      <input
        ref={inputs.address}
        id={ids.address}
        name="platform"
        type="url"
        inputMode="url"
        autocomplete="url"
        autocapitalize="none"
        spellcheck={false}
        value={address}
        readOnly={busy}
        placeholder={t.signIn.platformAddressPlaceholder}
        aria-invalid={problems.address ? true : undefined}
        aria-describedby={described("address", problems.address ? undefined : `${ids.address}-hint`)}
        onInput={edit("address", setAddress)}
      />
      {bar ? (
        <span class="sr-only" id={`${ids.address}-hint`}>
          {t.signIn.platformAddressHint(model.pageOrigin)}
        </span>
      ) : (
        fieldProblem("address", t.signIn.platformAddressHint(model.pageOrigin))
      )}
    </div>
  );

  const submitButton = (
    <button
      type="submit"
      class="primary submit"
      aria-disabled={busy || undefined}
      aria-describedby={message ? ids.message : undefined}
      data-busy={busy || undefined}
    >
      {busy && <span class="spinner" aria-hidden="true" />}
      <span>{busy ? t.signIn.submitting : t.signIn.submit}</span>
    </button>
  );

  const messageBox = (
    <div
      class={`form-message ${message ? `is-${message.tone}` : ""}`}
      id={ids.message}
      data-testid="sign-in-message"
      title={bar && message ? message.text : undefined}
    >
      {message && (message.tone === "error" ? <AlertIcon /> : <InfoIcon />)}
      {message && <span class="form-message-text">{message.text}</span>}
    </div>
  );

  if (bar) {
    return (
      <div class="sign-in layout-bar">
        <Brand compact />
        <form class="sign-in-form" aria-label={t.signIn.title} noValidate onSubmit={submit} aria-busy={busy}>
          {loginField}
          {passwordField}
          {captchaField}
          {addressField}
          {submitButton}
          {messageBox}
          {addressToggle}
        </form>
        <LanguageSwitch />
      </div>
    );
  }

  return (
    <div class={`sign-in layout-${layout}`}>
      <header class="sign-in-top">
        <Brand />
        <LanguageSwitch />
      </header>
      <main class="sign-in-main">
        <form class="sign-in-card" aria-labelledby={`${ids.form}-title`} noValidate onSubmit={submit} aria-busy={busy}>
          <h1 id={`${ids.form}-title`}>{t.signIn.title}</h1>
          <p class="sign-in-intro">{t.signIn.intro}</p>
          {loginField}
          {passwordField}
          {captchaField}
          <div class="advanced">
            {addressToggle}
            {addressField}
          </div>
          {submitButton}
          {messageBox}
        </form>
      </main>
    </div>
  );
}
