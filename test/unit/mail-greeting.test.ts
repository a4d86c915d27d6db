import { test } from 'node:test';
import assert from 'node:assert/strict';
import { greetingName, holdMail } from '../../src/mail/templates.ts';

test('a visitor mail greets a typed name only when it reads as a name: never a sender’s sentence or link', () => {
  for (const name of ['Chloé', "Anne-Marie O'Neil", 'J. R.', '  Wren  ']) assert.equal(greetingName(name), name.trim(), name);
  for (const words of ['Visit https://evil.test now', 'Bob, your account is locked', '<b>Hi</b>', 'x'.repeat(41), '123', '', undefined]) {
    assert.equal(greetingName(words), '', String(words));
  }
  const mail = holdMail({
    project: { name: 'Harbour Lofts', settings: {} } as Parameters<typeof holdMail>[0]['project'],
    projectId: '0123456789abcdef01234567',
    unitName: 'A-101',
    to: 'someone@example.com',
    firstName: 'Your account is suspended, log in at https://evil.test to keep it',
    until: new Date(Date.UTC(2030, 0, 1, 12)),
    link: undefined,
    now: Date.UTC(2030, 0, 1, 11),
  });
  assert.match(mail.text, /^Hello,\n/);
  assert.doesNotMatch(mail.text + mail.html, /evil\.test|suspended/);
});
