import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { createFloor, createProject, createUnit, ENGINE } from './helpers.ts';
import { DESKTOP, PHONE, SHOTS } from './support/browser.ts';
import { api, base, context, heading, json, owner, page, pageErrors, pagesBase, shots, skip, status, t, useSignedInConsole } from './fixtures-console.ts';

/**
 * The sales team's second day in the console, in one Chromium against the real service: drafts and the
 * publishing checklist, the units grid as a spreadsheet (rows added, duplicated, deleted, pasted), the bulk bar and
 * its undo, uploads with progress, the leads inbox, holds, a group's address, and the grid at phone width.
 * Typing is key by key; pastes and drops are real clipboard and drag events.
 */

useSignedInConsole({ shots: 'console-sheets' });

const importCsv = async (project: string, csv: string) => {
  const res = await api('POST', `/projects/${project}/inventory/import`, csv, { 'content-type': 'text/csv' });
  assert.equal(res.statusCode, 200, res.body);
};

/** A picture `w` × `h` as a PNG. */
const png = (w: number, h: number) =>
  sharp({ create: { width: w, height: h, channels: 3, background: { r: 40, g: 120, b: 90 } } })
    .png()
    .toBuffer();

/** Drops `files` on the drop zone labelled `zone`, as a drag from the desktop does, watching for a progress bar. */
async function drop(zone: string, files: { name: string; type: string; data: Buffer }[]) {
  await page.evaluate(
    ({ zone, files }) => {
      const el = document.querySelector(`[data-dropzone="${zone}"]`)!;
      const w = window as unknown as { sawProgress: boolean };
      w.sawProgress = false;
      new MutationObserver((_, obs) => {
        if (!el.querySelector('progress')) return;
        w.sawProgress = true;
        obs.disconnect();
      }).observe(el, { childList: true, subtree: true });
      const dt = new DataTransfer();
      for (const f of files) dt.items.add(new File([Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
      el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    { zone, files: files.map((f) => ({ ...f, data: f.data.toString('base64') })) },
  );
}

/** Pastes `text` into the focused element as a spreadsheet's copy arrives: a paste event with text/plain. */
const paste = (text: string) =>
  page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.setData('text/plain', text);
    document.activeElement!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, text);

describe(`the console, second day (${ENGINE})`, { skip }, () => {
  test('the units grid adds, duplicates and deletes rows; a pasted block shows the dry-run diff and applies in one step', async () => {
    const p = await createProject(t.app, owner.auth, { name: 'Grid Court' });
    const floor = await createFloor(t.app, owner.auth, p._id, { name: 'Ground' });
    await importCsv(p._id, 'name,floor,price,availability\nG-01,Ground,500000,available\nG-02,Ground,510000,available\n');
    await page.goto(`${base}/admin/projects/${p._id}/units`);
    await heading('Units');
    await page.getByLabel('Price of G-01').waitFor();

    await page.getByRole('button', { name: 'Add unit' }).click();
    await status(/added at the top/);
    const added = page.getByLabel('Name of Unit 3');
    assert.equal(await added.evaluate((el) => el === document.activeElement), true, 'the new row’s name is ready to type over');
    await added.pressSequentially('G-03');
    await page.keyboard.press('Enter');
    await status('G-03: Name saved.');

    await page.getByRole('button', { name: 'Duplicate G-02' }).click();
    await status('G-02 duplicated as G-04.');
    const copy = (await json<{ name: string; price?: number; floor?: string }[]>('GET', `/units?project=${p._id}`)).find((u) => u.name === 'G-04')!;
    assert.equal(copy.price, 510000);
    assert.equal(copy.floor, floor._id);

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete G-03' }).click();
    await status('G-03 deleted.');
    assert.equal((await json<unknown[]>('GET', `/units?project=${p._id}`)).length, 3);

    // Rows copied from a spreadsheet without a header: the grid's own columns, in its order.
    await page.getByLabel('Name of G-01').focus();
    await paste('G-01\tGround\tavailable\t525000\nG-10\tGround\treserved\t700000\n');
    const diff = page.locator('.paste .preview-diff');
    await diff.getByText('1 to create, 1 to update').waitFor();
    assert.match((await diff.textContent()) ?? '', /price: 500000 → 525000/);
    assert.equal((await json<unknown[]>('GET', `/units?project=${p._id}`)).length, 3, 'nothing written before Apply');
    await shots('paste');
    await page.locator('.paste').getByRole('button', { name: 'Apply 2 changes' }).click();
    await status('Imported: 1 created, 1 updated');
    await page.getByLabel('Price of G-10').waitFor();
    assert.equal(await page.getByLabel('Price of G-01').inputValue(), '525,000', 'prices with thousands separators');

    // With a header row in the sales team's words.
    await page.getByLabel('Name of G-01').focus();
    await paste('Name\tStatus\tPrice\nG-02\tReserved\t515000');
    await page.locator('.paste .preview-diff').getByText('1 to update').waitFor();
    await page.locator('.paste').getByRole('button', { name: 'Apply 1 change' }).click();
    await status('Imported: 0 created, 1 updated');
  });

  test('the bulk bar stays in view, clears after applying, and the last bulk change is undone from the history', async () => {
    const p = await createProject(t.app, owner.auth, { name: 'Bulk House' });
    await createFloor(t.app, owner.auth, p._id, { name: 'L1' });
    const rows = Array.from({ length: 40 }, (_, i) => `B-${String(i + 1).padStart(2, '0')},L1,${400000 + i * 1000},available`);
    await importCsv(p._id, `name,floor,price,availability\n${rows.join('\n')}\n`);
    await page.goto(`${base}/admin/projects/${p._id}/units`);
    await heading('Units');
    const grid = page.getByTestId('units-grid');
    await grid.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.getByLabel('Select B-39').check();
    await page.getByLabel('Select B-40').check();
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    const bar = page.getByRole('form', { name: 'Change the selected units' });
    const box = (await bar.boundingBox())!;
    assert.ok(box.y >= -1 && box.y < DESKTOP.height, `the bulk bar is on screen (top at ${box.y})`);
    await shots('bulk');

    await bar.getByLabel('Percent (e.g. 5 or -3)').pressSequentially('3');
    await bar.getByRole('button', { name: 'Change 2 prices' }).click();
    await status('2 prices changed.');
    assert.equal(await bar.getByLabel('Percent (e.g. 5 or -3)').inputValue(), '', 'cleared: a second click cannot apply it again');
    assert.equal(await bar.getByRole('button', { name: 'Change 2 prices' }).isDisabled(), true);
    const price = async (name: string) => (await json<{ name: string; price: number }[]>('GET', `/units?project=${p._id}`)).find((u) => u.name === name)!.price;
    assert.equal(await price('B-40'), Math.round(439000 * 1.03));

    await bar.getByRole('button', { name: /^Undo: 2 prices changed/ }).click();
    await status('Undone: 2 prices changed.');
    assert.equal(await price('B-40'), 439000);
    assert.equal(await price('B-39'), 438000);
  });

  test('5,000 units: only the rows in view are in the page, the last is reached by scrolling, and the name filter follows the typing', async () => {
    const p = await createProject(t.app, owner.auth, { name: 'Big Tower' });
    await createFloor(t.app, owner.auth, p._id, { name: 'Podium' });
    const rows = Array.from({ length: 5000 }, (_, i) => `T-${String(i + 1).padStart(4, '0')},Podium,${300000 + i},available`);
    await importCsv(p._id, `name,floor,price,availability\n${rows.join('\n')}\n`);
    await page.goto(`${base}/admin/projects/${p._id}/units`);
    await heading('Units');
    await page.getByLabel('Price of T-0001').waitFor();
    const drawn = await page.locator('table.grid tbody tr:not(.spacer)').count();
    assert.ok(drawn < 80, `${drawn} rows in the document, not 5,000`);
    await page.getByTestId('units-grid').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.getByLabel('Price of T-5000').waitFor();
    await page.getByLabel('Name contains').pressSequentially('T-49');
    await page.getByText('100 of 5000 units shown').waitFor();
    await page.getByLabel('Price of T-4900').waitFor();
  });

  test('at phone width the unit’s name stays in view while the grid scrolls sideways', async () => {
    const p = await createProject(t.app, owner.auth, { name: 'Narrow Place' });
    await createFloor(t.app, owner.auth, p._id, { name: 'One' });
    await importCsv(p._id, 'name,floor,price,bedrooms,bathrooms,squareFeet,type\nN-1,One,250000,2,1,700,A\nN-2,One,260000,2,2,720,B\n');
    await page.setViewportSize(PHONE);
    await page.goto(`${base}/admin/projects/${p._id}/units`);
    await heading('Units');
    const name = page.getByLabel('Name of N-1');
    const x0 = (await name.boundingBox())!.x;
    await page.getByTestId('units-grid').evaluate((el) => (el.scrollLeft = el.scrollWidth));
    await page.getByLabel('Type of N-1').waitFor();
    const x1 = (await name.boundingBox())!.x;
    assert.ok(Math.abs(x1 - x0) < 2, `the name did not move (${x0} → ${x1})`);
    assert.ok((await page.getByLabel('Type of N-1').boundingBox())!.x < PHONE.width, 'the far column is on screen');
    await page.screenshot({ path: `${SHOTS}/console-sheets-grid-scrolled-phone.png` });
    await page.setViewportSize(DESKTOP);
  });

  test("a unit's details: description, photos dropped with progress, layout, additional information; no finishes (the page shows none)", async () => {
    const p = await createProject(t.app, owner.auth, { name: 'Photo Lane' });
    const f = await createFloor(t.app, owner.auth, p._id, { name: 'One' });
    const u = await createUnit(t.app, owner.auth, p._id, { name: 'P-1', floor: f._id });
    await page.goto(`${base}/admin/projects/${p._id}/units`);
    await page.getByRole('button', { name: 'Details of P-1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Details of P-1' });
    await dialog.getByLabel('Description').pressSequentially('Corner unit, morning sun.');
    await drop('Add to photos', [
      { name: 'a.png', type: 'image/png', data: await png(1600, 1000) },
      { name: 'b.png', type: 'image/png', data: await png(1200, 900) },
    ]);
    await dialog.getByRole('img', { name: 'Photos 2' }).waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { sawProgress: boolean }).sawProgress), true, 'a progress bar showed while uploading');
    await drop('Layout', [{ name: 'plan.png', type: 'image/png', data: await png(800, 600) }]);
    await dialog.getByRole('img', { name: 'Layout' }).waitFor();
    await dialog.getByRole('button', { name: 'Add a line' }).click();
    await dialog.getByLabel('Label 1').pressSequentially('Ceiling height');
    await dialog.getByLabel('Value 1').pressSequentially('2.9 m');
    assert.equal(await dialog.getByLabel(/Finishes/).count(), 0, 'no finishes control: the page does not show them');
    await shots('unit-details');
    await dialog.getByRole('button', { name: 'Save details' }).click();
    await status("P-1's details saved.");
    const saved = await json('GET', `/units/${u._id}`);
    assert.equal(saved.description, 'Corner unit, morning sun.');
    assert.equal((saved.images as string[]).length, 2);
    assert.match(String(saved.layoutUrl), /^\/media\/[0-9a-f]{32}\.png$/);
    assert.deepEqual(saved.additionalInfo, [{ label: 'Ceiling height', value: '2.9 m' }]);
  });

  test("a group's public address and domain are edited, with a link to its page", async () => {
    const g = await json<{ _id: string }>('POST', '/groups?name=Waterfront');
    await page.goto(`${base}/admin/groups/${g._id}`);
    await heading(/^Waterfront$/);
    await page.getByLabel('Public address (/g/…)').pressSequentially('waterfront');
    await page.getByLabel('Own domain').pressSequentially('homes.waterfront.example');
    await page.getByRole('button', { name: 'Save address' }).click();
    await status('Address saved.');
    const saved = await json<{ namespace: string; hostName: string }>('GET', `/groups/${g._id}`);
    assert.equal(saved.namespace, 'waterfront');
    assert.equal(saved.hostName, 'homes.waterfront.example');
    assert.match((await page.locator('#group-page').getAttribute('href')) ?? '', /\/g\/waterfront$/);
    await shots('group');
  });

  test('the plan editor draws a 1600×1000 plan in its own proportions', async () => {
    const p = await createProject(t.app, owner.auth, { name: 'Wide Plan' });
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await png(1600, 1000))]), 'plan.png');
    const media = (await (await fetch(`${base}/media`, { method: 'POST', body: form, headers: owner.auth })).json()) as { url: string };
    const f = await createFloor(t.app, owner.auth, p._id, { name: 'Wide', body: { floorplanUrl: media.url } });
    await page.goto(`${base}/admin/projects/${p._id}/floors/${f._id}`);
    await heading('Plan of Wide');
    const img = page.locator('.plan-frame img');
    await img.waitFor();
    await page.waitForFunction(() => (document.querySelector('.plan-frame img') as HTMLImageElement).complete);
    assert.equal(await img.evaluate((el) => getComputedStyle(el).objectFit), 'contain');
    await shots('plan-ratio');
  });

  test('a project made in the console is a draft; the Publish step lists what is missing, previews the draft, and publishes', async () => {
    await page.goto(`${base}/admin`);
    await heading('Projects');
    await page.getByRole('button', { name: 'New project' }).click();
    await page.getByLabel('Project name').pressSequentially('Quay Draft');
    await page.getByRole('button', { name: 'Create project' }).click();
    await heading('Settings');
    const id = new URL(page.url()).pathname.split('/')[3]!;
    const project = await json<{ published: boolean; namespace: string }>('GET', `/projects/${id}`);
    assert.equal(project.published, false);
    assert.equal((await fetch(`${pagesBase}/p/${project.namespace}`)).status, 404, 'a draft is not public');
    await json('PATCH', `/projects/${id}`, { enableForms: true, onHoldExperienceEnabled: true });
    const floor = await createFloor(t.app, owner.auth, id, { name: 'Deck' });
    await createUnit(t.app, owner.auth, id, { name: 'Q-1', floor: floor._id });

    await page.getByRole('link', { name: 'Draft: not public yet' }).click();
    await heading('Publish');
    const list = page.getByRole('list', { name: 'Before publishing' });
    await list.getByText('1 unit without a price: Q-1').waitFor();
    await list.getByText('Floors without a plan or shapes: Deck').waitFor();
    await list.getByText(/Enquiry forms are on but nobody receives them/).waitFor();
    await shots('publish');

    const [popup] = await Promise.all([context.waitForEvent('page'), page.getByRole('button', { name: 'Preview the draft page' }).click()]);
    await popup.waitForLoadState();
    const preview = (await page.locator('#preview-link').getAttribute('href'))!;
    assert.equal((await fetch(preview)).status, 200, 'the signed preview opens the draft');
    await popup.close();

    await page.getByRole('button', { name: 'Publish Quay Draft' }).click();
    await status('Published: the page is public now.');
    assert.equal((await json<{ published: boolean }>('GET', `/projects/${id}`)).published, true);
    assert.equal((await fetch(`${pagesBase}/p/${project.namespace}`)).status, 200);
  });

  test('the import screen names its columns, gives CSV and Excel templates, and an Excel file round-trips unchanged', async () => {
    const p = await createProject(t.app, owner.auth, { name: 'Template Row' });
    await createFloor(t.app, owner.auth, p._id, { name: 'Ground' });
    await importCsv(
      p._id,
      'name,floor,price,availability,bedrooms,bathrooms,squareFeet\nR-1,Ground,300000,available,2,1,700\nR-2,Ground,320000,sold,3,2,820\n',
    );
    await page.goto(`${base}/admin/projects/${p._id}/units`);
    await page.getByText('Column names the import understands').click();
    await page.getByRole('cell', { name: 'Sq Ft, Square Feet' }).waitFor();
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Template (CSV)' }).click()]);
    const csvText = await (await csv.createReadStream()).toArray().then((b) => Buffer.concat(b).toString('utf8'));
    assert.match(csvText.split(/\r?\n/)[0]!, /^Name,Floor,Status,Price/i);
    const [xlsx] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Template (Excel)' }).click()]);
    assert.match(xlsx.suggestedFilename(), /\.xlsx$/);
    const book = Buffer.concat(await (await xlsx.createReadStream()).toArray());
    await page
      .getByLabel('Excel or CSV file to import')
      .setInputFiles({ name: 'units.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: book });
    await page.getByRole('button', { name: 'Preview changes' }).click();
    await page.locator('.import .preview-diff').getByText('0 to create, 0 to update, 2 unchanged').waitFor();
    await shots('import');
  });

  test('a floor is duplicated with its plan, shapes and units', async () => {
    const p = await createProject(t.app, owner.auth, { name: 'Copy Floors' });
    const f = await createFloor(t.app, owner.auth, p._id, { name: 'Level 2', body: { floorplanUrl: '/media/0123456789abcdef0123456789abcdef.png' } });
    await createUnit(t.app, owner.auth, p._id, { name: '201', floor: f._id, body: { path: 'M10 10 L100 10 L100 100 Z', price: 1 } });
    await page.goto(`${base}/admin/projects/${p._id}/floors`);
    await heading('Floors and plans');
    await page.getByRole('button', { name: 'Duplicate Level 2 with its plan, shapes and units' }).click();
    await status(/Level 2 duplicated as/);
    const floors = await json<{ name: string; units: string[]; floorplanUrl?: string }[]>('GET', `/floors?project=${p._id}`);
    assert.equal(floors.length, 2);
    assert.equal(floors[1]!.units.length, 1);
    assert.equal(floors[1]!.floorplanUrl, f.floorplanUrl);
  });

  test('the leads inbox: one table across projects, search as you type, filters, sort, status, notes and assignee, export', async () => {
    const mk = async (name: string) => {
      const p = await createProject(t.app, owner.auth, { name, body: { enableForms: true } });
      return p._id as string;
    };
    const [a, b] = [await mk('Inbox North'), await mk('Inbox South')];
    const send = async (project: string, firstName: string, lastName: string, email: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/public/leads',
        payload: { project, firstName, lastName, email, phone: '+1 555 0101', message: 'Hello' },
      });
      assert.equal(res.statusCode, 201, res.body);
    };
    await send(a, 'Nora', 'Buyer', 'nora@example.com');
    await send(a, 'Omar', 'Zed', 'omar@example.com');
    await send(b, 'Nadia', 'Able', 'nadia@example.com');
    await page.goto(`${base}/admin/leads`);
    await heading('Leads');
    const table = page.locator('table.leads-table tbody');
    await table.getByText('Nadia Able').waitFor();
    await page.getByLabel('Search name, e-mail or phone').pressSequentially('nor');
    await page.getByText('1 lead', { exact: true }).waitFor();
    await page.getByLabel('Search name, e-mail or phone').fill('');
    await page.getByLabel('Project').selectOption({ label: 'Inbox North' });
    await page.getByText('2 leads', { exact: true }).waitFor();
    await page.getByRole('button', { name: /^Name/ }).click();
    assert.match((await table.locator('tr').first().textContent()) ?? '', /Nora Buyer/, 'sorted by last name');
    await page.getByRole('button', { name: /^Name/ }).click();
    assert.match((await table.locator('tr').first().textContent()) ?? '', /Omar Zed/, 'and back');

    await page.getByLabel('Status of Nora Buyer').selectOption('contacted');
    await status('Nora Buyer saved.');
    await page.getByLabel('Notes on Nora Buyer').pressSequentially('Called, wants a viewing');
    await page.getByLabel('Assignee of Nora Buyer').focus();
    await status('Nora Buyer saved.');
    await page.getByLabel('Assignee of Nora Buyer').selectOption({ label: 'Test User (you)' });
    await page.waitForFunction(() => true);
    const nora = async () =>
      (await json<{ email: string; status: string; notes: string; assignee: string }[]>('GET', `/leads?project=${a}`)).find(
        (l) => l.email === 'nora@example.com',
      )!;
    for (let i = 0; i < 50 && (await nora()).assignee !== owner.id; i++) await new Promise((r) => setTimeout(r, 100));
    const saved = await nora();
    assert.equal(saved.status, 'contacted');
    assert.equal(saved.notes, 'Called, wants a viewing');
    assert.equal(saved.assignee, owner.id);

    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const text = Buffer.concat(await (await csv.createReadStream()).toArray()).toString('utf8');
    assert.match(text, /nora@example\.com/);
    assert.doesNotMatch(text, /nadia@example\.com/, 'the export is the filtered view');
    const [xlsx] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export Excel' }).click()]);
    assert.match(xlsx.suggestedFilename(), /\.xlsx$/);
    await shots('leads');
  });

  test('holds name their holder, show local times, and can be extended and released', async () => {
    const p = await createProject(t.app, owner.auth, { name: 'Hold Harbour', body: { onHoldExperienceEnabled: true, onHoldMinsDuration: 30 } });
    const f = await createFloor(t.app, owner.auth, p._id, { name: 'One' });
    const u = await createUnit(t.app, owner.auth, p._id, { name: 'H-1', floor: f._id });
    const held = await t.app.inject({
      method: 'POST',
      url: `/public/units/${u._id}/hold`,
      payload: { firstName: 'Sam', lastName: 'Holder', email: 'sam@example.com', phone: '+1 555 0100' },
    });
    assert.equal(held.statusCode, 200, held.body);
    const before = Date.parse((await json<{ onHoldExpiresAt: string }>('GET', `/units/${u._id}`)).onHoldExpiresAt);
    await page.goto(`${base}/admin/holds`);
    await heading('Holds');
    const card = page.locator('.hold').filter({ hasText: 'H-1' });
    await card.getByText('Held by Sam Holder').waitFor();
    const shown = await card.locator('time').textContent();
    const local = await page.evaluate(
      (iso) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)),
      new Date(before).toISOString(),
    );
    assert.equal(shown, local);
    await shots('holds');
    await card.getByRole('button', { name: 'Extend H-1 by 30 min' }).click();
    await status(/H-1 held until/);
    const after = Date.parse((await json<{ onHoldExpiresAt: string }>('GET', `/units/${u._id}`)).onHoldExpiresAt);
    assert.ok(after - before >= 30 * 60_000 - 1000, `extended by 30 minutes (${(after - before) / 60_000})`);
    await page.locator('.hold').filter({ hasText: 'H-1' }).getByRole('button', { name: 'Release H-1' }).click();
    await status('H-1 released');
    assert.equal((await json<{ availability: string }>('GET', `/units/${u._id}`)).availability, 'available');
  });

  test('no script errors on any screen', () => {
    assert.deepEqual(pageErrors, []);
  });
});
