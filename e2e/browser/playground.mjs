// The playground at / in headless Chromium, against the real server, with no network beyond it:
// the page must load GraphiQL from the server itself, run a query anonymously (the prefilled
// "Bearer " without a token is not sent), then with a token typed into the headers editor.
//
//   PLAYGROUND_URL=http://127.0.0.1:8080/ PLAYGROUND_TOKEN=<MERCHANT token> \
//   PLAYGROUND_EXPECT=<text the authenticated result must hold> node playground.mjs
//
// CHROMIUM overrides /usr/bin/chromium. Exits non-zero, saying why, on any failure.
import { chromium } from "playwright-core";

const { PLAYGROUND_URL: url, PLAYGROUND_TOKEN: token, PLAYGROUND_EXPECT: expected } = process.env;
if (!url || !token || !expected) {
  console.error("set PLAYGROUND_URL, PLAYGROUND_TOKEN and PLAYGROUND_EXPECT");
  process.exit(2);
}
const origin = new URL(url).origin;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"],
});
const problems = [];
try {
  const context = await browser.newContext();
  // Anything not served by the server under test is refused (and reported): the page must work
  // offline.
  await context.route("**/*", (route) => {
    const u = route.request().url();
    if (u.startsWith(origin + "/") || u.startsWith("data:")) return route.continue();
    problems.push(`request outside the server: ${u}`);
    return route.abort("internetdisconnected");
  });
  const page = await context.newPage();
  page.on("console", (m) => m.type() === "error" && problems.push(`console error: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  // Every GET (the page and its assets) must succeed; the GraphQL POSTs are judged by the result.
  page.on("response", (r) => r.request().method() === "GET" && r.status() >= 400 &&
    problems.push(`HTTP ${r.status()} for ${r.url()}`));

  await page.goto(url);
  await page.locator(".graphiql-execute-button").waitFor({ timeout: 60_000 }); // 2 busy cores

  const editor = (sel) => page.locator(`${sel} .CodeMirror`).first();
  const value = (loc) => loc.evaluate((el) => el.CodeMirror.getValue());
  const headers = editor(".graphiql-editor-tool .graphiql-editor:not(.hidden)");
  const result = editor(".result-window");

  const run = async (want) => {
    await page.locator(".graphiql-execute-button").click();
    await page.waitForFunction(
      (w) => document.querySelector(".result-window .CodeMirror")?.CodeMirror.getValue().includes(w),
      want, { timeout: 30_000 });
    return value(result);
  };

  const prefilled = await value(headers);
  if (!/"Authorization":\s*"Bearer "/.test(prefilled)) {
    throw new Error(`headers editor is not prefilled with an Authorization header: ${prefilled}`);
  }

  // Without a token: the server sees an anonymous caller (not an invalid token).
  const anonymous = await run("UNAUTHENTICATED");
  if (!anonymous.includes("sign in")) throw new Error(`anonymous result: ${anonymous}`);

  // Type the token into the headers editor as a user would: after "Bearer ".
  await headers.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${token}` }, null, 2));
  const signedIn = await run(expected);
  if (signedIn.includes('"errors"')) throw new Error(`result with the token has errors: ${signedIn}`);
  console.log(`playground: ran a query with the Authorization header, result:\n${signedIn}`);
} catch (e) {
  problems.push(e.stack || String(e));
} finally {
  await browser.close();
}
if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
