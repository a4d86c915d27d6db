import { projectTime } from '../lib/project-time.ts';
import type { Mail } from './mailer.ts';

/** The languages mail is written in (like the presentation page); anything else reads as English. */
export type Lang = 'en' | 'fr' | 'es';
export const langOf = (value: unknown): Lang => {
  const code = typeof value === 'string' ? value.slice(0, 2).toLowerCase() : '';
  return code === 'fr' || code === 'es' ? code : 'en';
};

const WORDS = {
  en: {
    newEnquiry: (p: string) => `New enquiry: ${p}`,
    newHold: (p: string, u: string) => `Unit ${u} held: ${p}`,
    leadIntro: (p: string) => `A visitor left an enquiry on ${p}.`,
    holdIntro: (p: string, u: string) => `A visitor placed a hold on unit ${u} of ${p}.`,
    fields: {
      firstName: 'First name',
      lastName: 'Last name',
      email: 'E-mail',
      phone: 'Phone',
      unit: 'Unit',
      message: 'Message',
      source: 'Source',
      questions: 'Questions',
      customFields: 'Other answers',
      createdAt: 'Received',
    },
    replyHint: 'Reply to this message to answer the visitor.',
    thanks: (p: string) => `Thank you for your enquiry: ${p}`,
    hello: (n: string) => (n ? `Hello ${n},` : 'Hello,'),
    inviteSubject: (p: string) => `You are invited to ${p}`,
    inviteBody: (who: string, p: string, level: string) => `${who} invited you to join ${p} on Showsuite as ${level}.`,
    levels: { administrator: 'an administrator', editor: 'an editor', owner: 'its owner' },
    inviteAction: 'Accept the invitation',
    inviteExpiry: 'This link works once, for 7 days.',
    resetSubject: 'Reset your Showsuite password',
    resetBody: 'Someone (we hope you) asked to reset the password of your Showsuite account. Choose a new one here:',
    resetAction: 'Choose a new password',
    resetExpiry: 'This link works once, for 1 hour. If you did not ask for it, ignore this message: your password stays as it is.',
    holdSubject: (p: string, u: string) => `Unit ${u} is held for you: ${p}`,
    holdBody: (p: string, u: string, until: string) => `Unit ${u} of ${p} is held for you until ${until}. After that it is open to everyone again.`,
    holdAction: 'See your hold: extend it once, or release it',
    holdClosing: 'Keep this link to yourself: whoever opens it can release the hold.',
    endedSubject: (p: string, u: string) => `Your hold on unit ${u} has ended: ${p}`,
    endedBody: (p: string, u: string, at: string) =>
      `Your hold on unit ${u} of ${p} ended at ${at}. The home is open to everyone again; if it is still available, you can hold it again.`,
    endedAction: 'Hold it again',
    endedTeamSubject: (p: string, u: string) => `Hold on unit ${u} ended: ${p}`,
    endedTeamBody: (p: string, u: string, who: string, at: string) => `The hold on unit ${u} of ${p} by ${who} ended at ${at}. The unit is available again.`,
  },
  fr: {
    newEnquiry: (p: string) => `Nouvelle demande : ${p}`,
    newHold: (p: string, u: string) => `Lot ${u} réservé : ${p}`,
    leadIntro: (p: string) => `Un visiteur a laissé une demande sur ${p}.`,
    holdIntro: (p: string, u: string) => `Un visiteur a mis une option sur le lot ${u} de ${p}.`,
    fields: {
      firstName: 'Prénom',
      lastName: 'Nom',
      email: 'Courriel',
      phone: 'Téléphone',
      unit: 'Lot',
      message: 'Message',
      source: 'Origine',
      questions: 'Questions',
      customFields: 'Autres réponses',
      createdAt: 'Reçue le',
    },
    replyHint: 'Répondez à ce message pour écrire au visiteur.',
    thanks: (p: string) => `Merci pour votre demande : ${p}`,
    hello: (n: string) => (n ? `Bonjour ${n},` : 'Bonjour,'),
    inviteSubject: (p: string) => `Invitation : ${p}`,
    inviteBody: (who: string, p: string, level: string) => `${who} vous invite à rejoindre ${p} sur Showsuite en tant ${level}.`,
    levels: { administrator: "qu'administrateur", editor: "qu'éditeur", owner: 'que propriétaire' },
    inviteAction: "Accepter l'invitation",
    inviteExpiry: 'Ce lien fonctionne une seule fois, pendant 7 jours.',
    resetSubject: 'Réinitialiser votre mot de passe Showsuite',
    resetBody: 'Quelqu’un (vous, espérons-le) a demandé à réinitialiser le mot de passe de votre compte Showsuite. Choisissez-en un nouveau ici :',
    resetAction: 'Choisir un nouveau mot de passe',
    resetExpiry: "Ce lien fonctionne une seule fois, pendant 1 heure. Si vous n'avez rien demandé, ignorez ce message : votre mot de passe ne change pas.",
    holdSubject: (p: string, u: string) => `Le lot ${u} vous est réservé : ${p}`,
    holdBody: (p: string, u: string, until: string) => `Le lot ${u} de ${p} vous est réservé jusqu’au ${until}. Ensuite, il sera de nouveau ouvert à tous.`,
    holdAction: 'Voir votre option : la prolonger une fois, ou la libérer',
    holdClosing: 'Gardez ce lien pour vous : quiconque l’ouvre peut libérer l’option.',
    endedSubject: (p: string, u: string) => `Votre option sur le lot ${u} a pris fin : ${p}`,
    endedBody: (p: string, u: string, at: string) =>
      `Votre option sur le lot ${u} de ${p} a pris fin le ${at}. Le logement est de nouveau ouvert à tous ; s’il est encore disponible, vous pouvez le réserver à nouveau.`,
    endedAction: 'Le réserver à nouveau',
    endedTeamSubject: (p: string, u: string) => `Option sur le lot ${u} terminée : ${p}`,
    endedTeamBody: (p: string, u: string, who: string, at: string) =>
      `L’option de ${who} sur le lot ${u} de ${p} a pris fin le ${at}. Le lot est de nouveau disponible.`,
  },
  es: {
    newEnquiry: (p: string) => `Nueva consulta: ${p}`,
    newHold: (p: string, u: string) => `Unidad ${u} reservada: ${p}`,
    leadIntro: (p: string) => `Un visitante dejó una consulta en ${p}.`,
    holdIntro: (p: string, u: string) => `Un visitante reservó la unidad ${u} de ${p}.`,
    fields: {
      firstName: 'Nombre',
      lastName: 'Apellido',
      email: 'Correo',
      phone: 'Teléfono',
      unit: 'Unidad',
      message: 'Mensaje',
      source: 'Origen',
      questions: 'Preguntas',
      customFields: 'Otras respuestas',
      createdAt: 'Recibida',
    },
    replyHint: 'Responda a este mensaje para escribir al visitante.',
    thanks: (p: string) => `Gracias por su consulta: ${p}`,
    hello: (n: string) => (n ? `Hola ${n}:` : 'Hola:'),
    inviteSubject: (p: string) => `Invitación: ${p}`,
    inviteBody: (who: string, p: string, level: string) => `${who} le invita a unirse a ${p} en Showsuite como ${level}.`,
    levels: { administrator: 'administrador', editor: 'editor', owner: 'propietario' },
    inviteAction: 'Aceptar la invitación',
    inviteExpiry: 'Este enlace funciona una sola vez, durante 7 días.',
    resetSubject: 'Restablecer su contraseña de Showsuite',
    resetBody: 'Alguien (esperamos que usted) pidió restablecer la contraseña de su cuenta de Showsuite. Elija una nueva aquí:',
    resetAction: 'Elegir una nueva contraseña',
    resetExpiry: 'Este enlace funciona una sola vez, durante 1 hora. Si no lo pidió, ignore este mensaje: su contraseña no cambia.',
    holdSubject: (p: string, u: string) => `La unidad ${u} está reservada para usted: ${p}`,
    holdBody: (p: string, u: string, until: string) =>
      `La unidad ${u} de ${p} está reservada para usted hasta el ${until}. Después volverá a estar abierta a todos.`,
    holdAction: 'Ver su reserva: prolongarla una vez o liberarla',
    holdClosing: 'Guarde este enlace para usted: quien lo abra puede liberar la reserva.',
    endedSubject: (p: string, u: string) => `Su reserva de la unidad ${u} ha terminado: ${p}`,
    endedBody: (p: string, u: string, at: string) =>
      `Su reserva de la unidad ${u} de ${p} terminó el ${at}. La unidad vuelve a estar abierta a todos; si sigue disponible, puede reservarla de nuevo.`,
    endedAction: 'Reservarla de nuevo',
    endedTeamSubject: (p: string, u: string) => `Reserva de la unidad ${u} terminada: ${p}`,
    endedTeamBody: (p: string, u: string, who: string, at: string) =>
      `La reserva de ${who} de la unidad ${u} de ${p} terminó el ${at}. La unidad vuelve a estar disponible.`,
  },
} as const;

/**
 * A project's message signed with its owner's company (§19): a signature block (`-- ` then the name) at the end of the
 * text, and a last paragraph in the HTML. Words are the company's own, so the line reads the same in every language.
 */
export function signMail(mail: Mail, company: string | undefined): Mail {
  if (!company) return mail;
  const line = `<p style="color:#555">— ${escapeHtml(company)}</p>`;
  const at = mail.html.lastIndexOf('</body>');
  return {
    ...mail,
    text: `${mail.text.replace(/\n*$/, '')}\n\n-- \n${company}\n`,
    html: at < 0 ? `${mail.html}${line}` : `${mail.html.slice(0, at)}${line}${mail.html.slice(at)}`,
  };
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);

function page(lang: Lang, bodyHtml: string) {
  const style = 'font-family:sans-serif;line-height:1.5;color:#1b1b1b';
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"></head><body style="${style}">${bodyHtml}</body></html>`;
}
const tableRow = (k: string, v: string) => `<tr><th align="left" valign="top">${escapeHtml(k)}</th><td>${escapeHtml(v).replace(/\n/g, '<br>')}</td></tr>`;
/** A link, the address written out (for clients that do not follow links), and a closing line. */
const linkBlock = (link: string, action: string, closing: string) =>
  `<p><a href="${escapeHtml(link)}">${escapeHtml(action)}</a></p><p>${escapeHtml(link)}</p><p>${escapeHtml(closing)}</p>`;
const paragraphs = (text: string) =>
  text
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('');
/** Text of a field: questions and custom fields as `question: answer` lines, other values as they are. */
function show(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    return v
      .map((e: Record<string, unknown>) =>
        'question' in e ? `${show(e.question)}: ${show(e.answer ?? '')}` : 'key' in e ? `${show(e.key)}: ${show(e.value ?? '')}` : JSON.stringify(e),
      )
      .join('\n');
  }
  return JSON.stringify(v);
}

export interface LeadForMail {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  unit?: string | undefined;
  message?: string | undefined;
  source?: string | undefined;
  questions?: unknown;
  customFields?: unknown;
  createdAt: string;
}

export interface ProjectForMail {
  name: string;
  settings: Record<string, unknown>;
}

/** The sender's name on a project's mail: its formsFromName, when set. */
const fromNameOf = (settings: Record<string, unknown>) =>
  typeof settings.formsFromName === 'string' && settings.formsFromName.trim() ? settings.formsFromName.trim() : undefined;

const FIELD_ORDER = ['firstName', 'lastName', 'email', 'phone', 'unit', 'message', 'source', 'questions', 'customFields', 'createdAt'] as const;

/** The sales team's notice of a lead or a hold: every field, the unit by name, Reply-To the visitor. */
export function leadNotification(project: ProjectForMail, lead: LeadForMail, unitName: string | undefined, to: string[], now: number): Mail {
  const lang = langOf(project.settings.projectLang);
  const w = WORDS[lang];
  const hold = lead.source === 'hold';
  const customSubject =
    typeof project.settings.formsSubject === 'string' && project.settings.formsSubject.trim() ? project.settings.formsSubject.trim() : undefined;
  const subject = customSubject ?? (hold && unitName ? w.newHold(project.name, unitName) : w.newEnquiry(project.name));
  const rows: [string, string][] = [];
  for (const key of FIELD_ORDER) {
    const value = key === 'unit' ? (lead.unit ? (unitName ? `${unitName} (${lead.unit})` : lead.unit) : undefined) : lead[key];
    if (value === undefined || value === null || value === '') continue;
    rows.push([w.fields[key], show(value)]);
  }
  const intro = hold && unitName ? w.holdIntro(project.name, unitName) : w.leadIntro(project.name);
  const fromName = fromNameOf(project.settings);
  return {
    to,
    fromName,
    replyTo: lead.email,
    subject,
    text: `${intro}\n\n${rows.map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${w.replyHint}\n`,
    html: page(
      lang,
      `<p>${escapeHtml(intro)}</p><table cellpadding="4">${rows.map(([k, v]) => tableRow(k, v)).join('')}</table><p>${escapeHtml(w.replyHint)}</p>`,
    ),
    date: now,
  };
}

/** The visitor's confirmation, in the project's language, with the project's formsMessage. */
export function visitorConfirmation(project: ProjectForMail, lead: LeadForMail, now: number): Mail {
  const lang = langOf(project.settings.projectLang);
  const w = WORDS[lang];
  const message = String(project.settings.formsMessage);
  const fromName = fromNameOf(project.settings);
  const replyTo = typeof project.settings.formsSendTo === 'string' ? project.settings.formsSendTo.split(',')[0]?.trim() : undefined;
  return {
    to: [lead.email],
    fromName,
    replyTo: replyTo || undefined,
    subject: w.thanks(project.name),
    text: `${w.hello(greetingName(lead.firstName))}\n\n${message}\n`,
    html: page(lang, `<p>${escapeHtml(w.hello(greetingName(lead.firstName)))}</p>${paragraphs(message)}`),
    date: now,
  };
}

export function inviteMail(input: {
  to: string;
  lang: Lang;
  inviter: string;
  targetName: string;
  level: 'administrator' | 'editor' | 'owner';
  link: string;
  now: number;
}): Mail {
  const w = WORDS[input.lang];
  const body = w.inviteBody(input.inviter, input.targetName, w.levels[input.level]);
  return {
    to: [input.to],
    subject: w.inviteSubject(input.targetName),
    text: `${body}\n\n${w.inviteAction}: ${input.link}\n\n${w.inviteExpiry}\n`,
    html: page(input.lang, `<p>${escapeHtml(body)}</p>${linkBlock(input.link, w.inviteAction, w.inviteExpiry)}`),
    date: input.now,
  };
}

export function resetMail(input: { to: string; lang: Lang; link: string; now: number }): Mail {
  const w = WORDS[input.lang];
  return {
    to: [input.to],
    subject: w.resetSubject,
    text: `${w.resetBody}\n\n${input.link}\n\n${w.resetExpiry}\n`,
    html: page(input.lang, `<p>${escapeHtml(w.resetBody)}</p>${linkBlock(input.link, w.resetAction, w.resetExpiry)}`),
    date: input.now,
  };
}

/** The holder's notice of a hold: until when, and the page's link that shows it (extend once, release). */
/**
 * The name a mail to a visitor greets: what they typed when it reads as a name (letters, spaces, `-`, `'`, `.`; at most
 * 40 characters), else none. Anyone may type any address into a form, so the greeting must not carry a sender's own
 * words (a link, a sentence) into mail the service sends there.
 */
export function greetingName(typed: string | undefined): string {
  const name = (typed ?? '').trim().replace(/\s+/g, ' ');
  return name.length <= 40 && /^[\p{L}\p{M}][\p{L}\p{M} .'’-]*$/u.test(name) ? name : '';
}

export function holdMail(input: {
  project: ProjectForMail;
  /** The project's id, kept with the queued message (not sent). */
  projectId: string;
  unitName: string;
  to: string;
  firstName: string;
  until: Date;
  link: string | undefined;
  now: number;
}): Mail {
  const lang = langOf(input.project.settings.projectLang);
  const w = WORDS[lang];
  const body = w.holdBody(input.project.name, input.unitName, projectTime(input.until, input.project.settings, lang));
  const fromName = fromNameOf(input.project.settings);
  const hello = w.hello(greetingName(input.firstName));
  return {
    to: [input.to],
    fromName,
    subject: w.holdSubject(input.project.name, input.unitName),
    text: `${hello}\n\n${body}\n` + (input.link ? `\n${w.holdAction}: ${input.link}\n\n${w.holdClosing}\n` : ''),
    html: page(lang, `<p>${escapeHtml(hello)}</p><p>${escapeHtml(body)}</p>${input.link ? linkBlock(input.link, w.holdAction, w.holdClosing) : ''}`),
    date: input.now,
    project: input.projectId,
  };
}

/** A lapsed hold, as its two mails tell it. */
export interface EndedHoldForMail {
  project: ProjectForMail;
  projectId: string;
  unitName: string;
  /** When it lapsed. */
  endedAt: Date;
  holder: { firstName: string; lastName: string; email: string };
  /** The unit's page (no token: the hold is over), where "Hold it again" leads. */
  link: string | undefined;
  now: number;
}

/** The holder's notice that their hold lapsed: when (in the project's time zone), and the unit's page to hold it again. */
export function holdEndedMail(input: EndedHoldForMail): Mail {
  const lang = langOf(input.project.settings.projectLang);
  const w = WORDS[lang];
  const body = w.endedBody(input.project.name, input.unitName, projectTime(input.endedAt, input.project.settings, lang));
  const hello = w.hello(greetingName(input.holder.firstName));
  const replyTo = typeof input.project.settings.formsSendTo === 'string' ? input.project.settings.formsSendTo.split(',')[0]?.trim() : undefined;
  return {
    to: [input.holder.email],
    fromName: fromNameOf(input.project.settings),
    replyTo: replyTo || undefined,
    subject: w.endedSubject(input.project.name, input.unitName),
    text: `${hello}\n\n${body}\n` + (input.link ? `\n${w.endedAction}: ${input.link}\n` : ''),
    html: page(
      lang,
      `<p>${escapeHtml(hello)}</p><p>${escapeHtml(body)}</p>` +
        (input.link ? `<p><a href="${escapeHtml(input.link)}">${escapeHtml(w.endedAction)}</a></p><p>${escapeHtml(input.link)}</p>` : ''),
    ),
    date: input.now,
    project: input.projectId,
  };
}

/** The sales team's notice that a hold lapsed with no decision: who held it, when it ended; Reply-To the holder. */
export function holdEndedNotice(input: EndedHoldForMail, to: string[]): Mail {
  const lang = langOf(input.project.settings.projectLang);
  const w = WORDS[lang];
  const name = `${input.holder.firstName} ${input.holder.lastName}`.trim();
  const who = name ? `${name} (${input.holder.email})` : input.holder.email;
  const body = w.endedTeamBody(input.project.name, input.unitName, who, projectTime(input.endedAt, input.project.settings, lang));
  return {
    to,
    fromName: fromNameOf(input.project.settings),
    replyTo: input.holder.email,
    subject: w.endedTeamSubject(input.project.name, input.unitName),
    text: `${body}\n` + (input.link ? `\n${input.link}\n` : ''),
    html: page(lang, `<p>${escapeHtml(body)}</p>` + (input.link ? `<p><a href="${escapeHtml(input.link)}">${escapeHtml(input.link)}</a></p>` : '')),
    date: input.now,
    project: input.projectId,
  };
}
