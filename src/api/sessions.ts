import * as v from "valibot";
import type { Credentials, PlatformClient } from "./client";
import { idString, numberish, text } from "./schemas";

const SessionSchema = v.object({
  token: v.string(),
  expires: numberish,
  user_id: idString,
  extn: text,
  currentAuthority: text,
  system_roles: v.optional(v.object({ senior_roles_str: text, roles_str: text }), {
    senior_roles_str: "",
    roles_str: "",
  }),
  refresh_token: v.optional(v.string()),
});

export type Session = v.InferOutput<typeof SessionSchema>;

export interface SignInParams {
  login: string;
  password?: string;
  devKey?: string;
  /** Ask for a JWT (renewable with its refresh token). */
  jwt?: boolean;
  captcha?: string;
}

/** POST /api/sessions with a password or a developer key. */
export function signIn(client: PlatformClient, p: SignInParams): Promise<Session> {
  return client.request("POST", "/api/sessions", {
    auth: false,
    body: {
      // A developer key alone names its user (the spec: dev_key is required when login and password are absent).
      ...(p.login || p.devKey === undefined ? { login: p.login } : {}),
      ...(p.password !== undefined ? { password: p.password } : {}),
      ...(p.devKey !== undefined ? { dev_key: p.devKey } : {}),
      ...(p.jwt ? { jwt: true } : {}),
      ...(p.captcha ? { captcha_str: p.captcha } : {}),
    },
    schema: SessionSchema,
  });
}

/**
 * Renews a JWT session with its refresh token. The spec does not show this request's shape; the
 * platform family posts `{refresh_token}` to the token endpoint and answers like a sign-in. Kept
 * in this one function so that it is the only place to change.
 */
export async function refreshSession(client: PlatformClient, refreshToken: string): Promise<Credentials> {
  const s = await client.request("POST", "/api/sessions", {
    auth: false,
    body: { refresh_token: refreshToken },
    schema: SessionSchema,
  });
  return credentialsOf(s);
}

export function credentialsOf(s: Session): Credentials {
  return { token: s.token, expires: s.expires, ...(s.refresh_token ? { refreshToken: s.refresh_token } : {}) };
}

/**
 * DELETE /api/sessions. The client forgets its credentials whatever the platform answers: the
 * user asked to be signed out, and a renewal timer left running would later report the revoked
 * session as "expired".
 */
export async function signOut(client: PlatformClient): Promise<{ code: number; text: string }> {
  try {
    return await client.request("DELETE", "/api/sessions", {
      // A session already over is what the user wants now, not news.
      reportExpiry: false,
      schema: v.object({ code: numberish, text: v.string() }),
    });
  } finally {
    client.setCredentials(null);
  }
}

const CaptchaSchema = v.object({ captcha_id: idString, pic_path: v.string() });
export type Captcha = v.InferOutput<typeof CaptchaSchema>;

/** GET /api/captchas?login= — a captcha for the next sign-in of `login`. */
export function getCaptcha(client: PlatformClient, login: string): Promise<Captcha> {
  return client.request("GET", "/api/captchas", {
    auth: false,
    query: { login },
    envelope: true,
    schema: CaptchaSchema,
  });
}

/** Absolute address of a captcha picture (pic_path may be relative to the platform). */
export function captchaPictureUrl(client: PlatformClient, c: Captcha): string {
  return /^https?:/.test(c.pic_path) ? c.pic_path : client.baseUrl + c.pic_path;
}
