/**
 * The English catalogue, and the shape every other language must fill: a key missing from a
 * translation, or a message taking other arguments, fails the type check. In three parts: the
 * sign-in screen's (here, in the page's first file), the signed-in screen's (en-workspace.ts,
 * which comes with the phone and the toolbar and adds itself: see `completeEnglish`), and the
 * panels' shown later (en-panels.ts, loaded once the page is ready: see `loadEnglishPanels`).
 */
import type { enPanels } from "./en-panels";
import type { enWorkspace } from "./en-workspace";

export const en = {
  app: {
    name: "Agentbar",
  },
  language: {
    label: "Language",
  },
  signIn: {
    title: "Sign in",
    intro: "Use your platform account to take calls.",
    login: "Login name",
    password: "Password",
    showPassword: "Show password",
    hidePassword: "Hide password",
    capsLock: "Caps Lock is on.",
    platformAddress: "Platform address",
    platformAddressHint: (origin: string) => `Leave empty to use this site (${origin}).`,
    platformAddressPlaceholder: "https://pbx.example.com",
    captcha: "Characters in the picture",
    captchaShort: "Characters",
    captchaPicture: "Picture of the characters to type",
    captchaMissing: "The picture could not be loaded.",
    newCaptcha: "New picture",
    submit: "Sign in",
    submitting: "Signing in…",
    restoring: "Restoring your session…",
    opening: "Opening your workspace…",
    sessionEnded: "Your session ended. Sign in again to continue.",
  },
  check: {
    loginRequired: "Enter your login name.",
    passwordRequired: "Enter your password.",
    captchaRequired: "Type the characters shown in the picture.",
    addressMalformed: "Enter an address like https://pbx.example.com",
  },
  error: {
    wrongCredentials: (attemptsLeft: number | null, lockHours: number) =>
      attemptsLeft === null
        ? "Wrong login name or password. Check both and try again."
        : `Wrong login name or password. ${attemptsLeft === 1 ? "1 attempt" : `${attemptsLeft} attempts`} left before the account is locked for ${lockHours === 1 ? "1 hour" : `${lockHours} hours`}.`,
    captchaRequired:
      "After several failed sign-ins the platform wants proof that you are a person: type the characters in the picture.",
    wrongCaptcha: "The characters did not match the picture. Type the ones in the new picture.",
    wrongCredentialsOrCaptcha:
      "Wrong password, or the characters did not match the picture (the platform does not say which). Check the password and type the characters in the new picture.",
    locked: (until: string | null) =>
      until
        ? `This account is locked after too many failed sign-ins. Try again after ${until}, or ask an administrator to unlock it.`
        : "This account is locked after too many failed sign-ins. Try again later, or ask an administrator to unlock it.",
    disabled: "This account is disabled. Ask an administrator to enable it.",
    unreachable: (address: string) =>
      `Cannot reach the platform at ${address}. Check the platform address and your network connection.`,
    timeout: (address: string) => `The platform at ${address} did not answer in time. Try again in a moment.`,
    notAPlatform: (address: string) =>
      `${address} does not answer like the telephony platform. Check the platform address.`,
    other: (message: string) => `The platform refused the sign-in: ${message}`,
  },
  announce: {
    signedIn: (name: string) => `Signed in as ${name}.`,
    signedOut: "Signed out.",
  },
};

export type Messages = typeof en & typeof enWorkspace & typeof enPanels;
