// The web dashboard in a real browser: Debian's chromium driven by playwright-core, against a
// live 3-control-plane cluster that test/integration/dashboard_test.cc made and serves.
//
//   node dashboard_page_test.mjs URL CP1 CP2 CP3 SCREENSHOT_DIR
//
// It loads the page (no console error allowed), waits for 3 healthy members and "tolerates 1",
// stops CP3's etcd with its button (its card unhealthy and 2/3 within 3 s, writes still
// available), stops CP2's (writes unavailable), starts both (recovered), draws the controller
// graph, and — once no console error has been seen — POSTs an action without the page's token
// (403; the browser logs that refusal itself). A screenshot of each state goes to
// SCREENSHOT_DIR. Prints one
// line per step; exits non-zero naming the step that failed.
import { chromium } from "playwright-core";

const [url, cp1, cp2, cp3, shots] = process.argv.slice(2);
if (!shots) {
  console.error("usage: dashboard_page_test.mjs URL CP1 CP2 CP3 SCREENSHOT_DIR");
  process.exit(2);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  // This machine has no network beyond loopback: no background traffic, no sandbox (root).
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
  timeout: 60000,
});
const problems = [];
let failed = false;

async function step(name, fn) {
  const started = Date.now();
  try {
    await fn();
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (e) {
    failed = true;
    console.log(`FAIL ${name} (${Date.now() - started} ms): ${e.message.split("\n")[0]}`);
    throw e;
  }
}

const card = (page, node) => page.locator(`[data-testid=node-card][data-node="${node}"]`);

async function expectText(page, id, want, timeout) {
  await page.waitForFunction(([id, want]) => {
    const e = document.querySelector(`[data-testid=${id}]`);
    return e && e.textContent.trim() === want;
  }, [id, want], { timeout });
}

async function expectHealth(page, node, health, timeout) {
  await page.waitForFunction(([node, health]) => {
    const e = document.querySelector(`[data-testid=node-card][data-node="${node}"]`);
    return e && e.dataset.health === health;
  }, [node, health], { timeout });
}

try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));

  await step("the page loads and shows 3 healthy members, tolerating 1", async () => {
    await page.goto(url, { timeout: 10000 });
    for (const n of [cp1, cp2, cp3]) await expectHealth(page, n, "healthy", 20000);
    await expectText(page, "quorum-healthy", "3/3", 20000);
    await expectText(page, "quorum-tolerates", "tolerates 1", 5000);
    await expectText(page, "writes", "writes available", 5000);
    const current = await page.locator("[data-testid=quorum-row][data-current=true] td").first().textContent();
    if (current !== "3") throw new Error(`the highlighted quorum row is ${current}, not 3`);
    await page.screenshot({ path: `${shots}/dashboard-healthy.png`, fullPage: true });
  });

  await step("stopping one member's etcd: its card unhealthy and 2/3 within 3 s, writes available", async () => {
    const clicked = Date.now();
    await card(page, cp3).locator("button[data-action=etcd-stop]").click();
    await expectHealth(page, cp3, "unhealthy", 3000);
    await expectText(page, "quorum-healthy", "2/3", Math.max(1, 3000 - (Date.now() - clicked)));
    await expectText(page, "writes", "writes available", 1000);
    await page.screenshot({ path: `${shots}/dashboard-one-stopped.png`, fullPage: true });
  });

  await step("stopping a second: writes unavailable", async () => {
    await card(page, cp2).locator("button[data-action=etcd-stop]").click();
    await expectHealth(page, cp2, "unhealthy", 5000);
    await expectText(page, "writes", "writes unavailable", 10000);
    await page.screenshot({ path: `${shots}/dashboard-two-stopped.png`, fullPage: true });
  });

  await step("starting both: all healthy, writes available again", async () => {
    await card(page, cp2).locator("button[data-action=etcd-start]").click();
    await card(page, cp3).locator("button[data-action=etcd-start]").click();
    for (const n of [cp2, cp3]) await expectHealth(page, n, "healthy", 30000);
    await expectText(page, "quorum-healthy", "3/3", 30000);
    await expectText(page, "writes", "writes available", 30000);
    await page.screenshot({ path: `${shots}/dashboard-recovered.png`, fullPage: true });
  });

  await step("the controller graph renders", async () => {
    await page.getByTestId("show-graph").click();
    await page.waitForFunction(() => {
      const img = document.querySelector("#graph-box img");
      return img && img.complete && img.naturalWidth > 0;
    }, null, { timeout: 20000 });
  });

  await step("no console error so far", async () => {
    if (problems.length) throw new Error(problems.join("; "));
  });
  await step("a POST without the page's token is refused with 403", async () => {
    const status = await page.evaluate(async (node) => {
      const r = await fetch("/api/action", { method: "POST", headers: { "Content-Type": "application/json" },
                                             body: JSON.stringify({ node, action: "etcd-stop" }) });
      return r.status;
    }, cp1);
    if (status !== 403) throw new Error(`got ${status}`);
  });

} catch (e) {
  failed = true;
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
