/**
 * How the end-to-end tests, the browser benchmarks and the integration tests that need a browser
 * start Chromium: the system's own (CHROMIUM_PATH to use another; browser downloads are not
 * possible here), with fake media devices and nothing it would fetch by itself.
 */
export const chromiumLaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--autoplay-policy=no-user-gesture-required",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
};
