import { randomInt } from "node:crypto";

interface Captcha {
  id: number;
  login: string;
  text: string;
  expiresAt: number;
}

const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"; // no 0/O, 1/I look-alikes
const LIFETIME_MS = 5 * 60_000;

/**
 * Captchas for logins after repeated failures. A captcha is made for a login name
 * (GET /api/captchas?login=); the next POST /api/sessions of that login must carry its text as
 * `captcha_str`. Each captcha is checked once.
 */
export class CaptchaService {
  private nextId = 1;
  private readonly byId = new Map<number, Captcha>();
  private readonly byLogin = new Map<string, Captcha>();

  create(login: string): Captcha {
    this.sweep();
    const text = Array.from({ length: 5 }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
    const captcha = { id: this.nextId++, login, text, expiresAt: Date.now() + LIFETIME_MS };
    const previous = this.byLogin.get(login);
    if (previous) this.byId.delete(previous.id);
    this.byId.set(captcha.id, captcha);
    this.byLogin.set(login, captcha);
    return captcha;
  }

  /** True when `text` answers the login's current captcha; the captcha is used up either way. */
  check(login: string, text: string): boolean {
    const captcha = this.byLogin.get(login);
    if (!captcha) return false;
    this.byLogin.delete(login);
    this.byId.delete(captcha.id);
    return captcha.expiresAt > Date.now() && captcha.text === text.trim().toUpperCase();
  }

  /** The captcha picture (SVG): the characters, each turned a little, over noise lines. */
  picture(id: number): string | undefined {
    const captcha = this.byId.get(id);
    if (!captcha || captcha.expiresAt <= Date.now()) return undefined;
    const w = 150;
    const h = 50;
    const glyphs = [...captcha.text]
      .map((ch, i) => {
        const x = 18 + i * 26;
        const y = 33 + randomInt(-5, 6);
        const r = randomInt(-25, 26);
        return `<text x="${x}" y="${y}" transform="rotate(${r} ${x} ${y})" font-family="monospace" font-size="28" font-weight="bold" fill="#${shade()}">${ch}</text>`;
      })
      .join("");
    const lines = Array.from(
      { length: 6 },
      () =>
        `<line x1="${randomInt(w)}" y1="${randomInt(h)}" x2="${randomInt(w)}" y2="${randomInt(h)}" stroke="#${shade()}" stroke-width="1.5"/>`,
    ).join("");
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}"><rect width="100%" height="100%" fill="#f4f4f0"/>${lines}${glyphs}</svg>`;
  }

  private sweep() {
    const now = Date.now();
    for (const [id, c] of this.byId) {
      if (c.expiresAt <= now) {
        this.byId.delete(id);
        if (this.byLogin.get(c.login) === c) this.byLogin.delete(c.login);
      }
    }
  }
}

function shade(): string {
  return [0, 0, 0].map(() => randomInt(40, 140).toString(16).padStart(2, "0")).join("");
}
