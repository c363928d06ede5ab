import type { Messages } from "./en";

export const zhCN: Messages = {
  app: {
    name: "Agentbar",
    tagline: "软电话与呼叫中心工具条",
  },
  language: {
    label: "语言",
  },
  signIn: {
    title: "登录",
    intro: "使用平台账号登录后即可接听电话。",
    login: "登录名",
    password: "密码",
    showPassword: "显示密码",
    hidePassword: "隐藏密码",
    capsLock: "大写锁定已打开。",
    platformAddress: "平台地址",
    platformAddressHint: (origin: string) => `留空则使用本站（${origin}）。`,
    platformAddressPlaceholder: "https://pbx.example.com",
    captcha: "图中字符",
    captchaShort: "验证码",
    captchaPicture: "需要输入的字符图片",
    captchaMissing: "图片加载失败。",
    newCaptcha: "换一张",
    submit: "登录",
    submitting: "正在登录…",
    restoring: "正在恢复会话…",
    sessionEnded: "会话已结束，请重新登录。",
  },
  check: {
    loginRequired: "请输入登录名。",
    passwordRequired: "请输入密码。",
    captchaRequired: "请输入图片中的字符。",
    addressMalformed: "请输入类似 https://pbx.example.com 的地址",
  },
  error: {
    wrongCredentials: (attemptsLeft: number | null, lockHours: number) =>
      attemptsLeft === null
        ? "登录名或密码错误，请检查后重试。"
        : `登录名或密码错误。再错 ${attemptsLeft} 次，账号将被锁定 ${lockHours} 小时。`,
    captchaRequired: "登录失败次数较多，请输入图片中的字符后再登录。",
    wrongCaptcha: "字符与图片不符，请输入新图片中的字符。",
    locked: (until: string | null) =>
      until ? `登录失败次数过多，账号已被锁定。请在 ${until} 之后再试，或请管理员解锁。` : "登录失败次数过多，账号已被锁定。请稍后再试，或请管理员解锁。",
    disabled: "此账号已停用，请联系管理员启用。",
    unreachable: (address: string) => `无法连接到平台 ${address}。请检查平台地址和网络连接。`,
    timeout: (address: string) => `平台 ${address} 未及时响应，请稍后重试。`,
    notAPlatform: (address: string) => `${address} 的响应不像电话平台，请检查平台地址。`,
    other: (message: string) => `平台拒绝了登录：${message}`,
  },
  shell: {
    account: "账号",
    signOut: "退出登录",
    signingOut: "正在退出…",
    login: "登录名",
    role: "角色",
    extension: "分机",
    extensionShort: (extension: string) => `分机 ${extension}`,
    noExtension: "无",
    domain: "域",
    platform: "平台",
    roles: {
      admin: "管理员",
      supervisor: "主管",
      agent: "坐席",
      user: "用户",
    },
  },
  announce: {
    signedIn: (name: string) => `已登录：${name}。`,
    signedOut: "已退出登录。",
  },
};
