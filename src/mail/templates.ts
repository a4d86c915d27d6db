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
    newBooking: (p: string) => `Visit booked: ${p}`,
    bookingIntro: (p: string) => `A visitor booked a visit of ${p} through Cal.com.`,
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
      visit: 'Visit',
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
    depositSubject: (p: string, u: string) => `Deposit received: ${u}, ${p}`,
    depositBody: (p: string, u: string, amount: string) => `We received your deposit of ${amount} for ${u} at ${p}.`,
    depositReserved: 'The home is now reserved for you; the sales team will be in touch.',
    depositNotReserved: 'The sales team will contact you about the home shortly.',
    depositRef: (id: string) => `Deposit reference: ${id}`,
    depositTeamSubject: (p: string, u: string) => `Deposit paid: ${u}, ${p}`,
    depositTeamBody: (p: string, u: string, who: string, amount: string) => `${who} paid a deposit of ${amount} for ${u} at ${p}.`,
    depositTeamReserved: 'The unit is now reserved.',
    depositTeamNotReserved:
      'The unit could not be reserved: its hold had lapsed and it was no longer free. Refund the deposit or arrange another home with the buyer.',
    depositTeamRef: (id: string) => `Deposit: ${id}`,
    depositTeamAction: 'See it in the console',
    wsSubject: (who: string, p: string) => `New worksheet from ${who}: ${p}`,
    wsIntro: (who: string, p: string, buyer: string) => `${who} submitted a worksheet on ${p} for ${buyer}.`,
    wsBuyer: 'Buyer:',
    wsChoices: 'Choices, in order of preference:',
    wsNotes: 'Notes:',
    wsRealtor: (e: string) => `Realtor's e-mail: ${e} (they are mailed your decision)`,
    wsAction: 'Accept or decline it in the console:',
    wsAcceptedSubject: (u: string, b: string, p: string) => `Worksheet accepted: ${u} for ${b} (${p})`,
    wsDeclinedSubject: (b: string, p: string) => `Worksheet declined: ${b} (${p})`,
    wsAccepted: (b: string, p: string, u: string) => `Your worksheet for ${b} on ${p} was accepted: unit ${u} is reserved for them.`,
    wsAcceptedNext: 'The sales team will be in touch about the next steps.',
    wsDeclined: (b: string, p: string) => `Your worksheet for ${b} on ${p} was declined.`,
    wsDeclinedNext: 'You may submit another worksheet with other choices.',
  },
  fr: {
    newEnquiry: (p: string) => `Nouvelle demande : ${p}`,
    newHold: (p: string, u: string) => `Lot ${u} réservé : ${p}`,
    leadIntro: (p: string) => `Un visiteur a laissé une demande sur ${p}.`,
    holdIntro: (p: string, u: string) => `Un visiteur a mis une option sur le lot ${u} de ${p}.`,
    newBooking: (p: string) => `Visite réservée : ${p}`,
    bookingIntro: (p: string) => `Un visiteur a réservé une visite de ${p} sur Cal.com.`,
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
      visit: 'Visite',
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
    depositSubject: (p: string, u: string) => `Acompte reçu : ${u}, ${p}`,
    depositBody: (p: string, u: string, amount: string) => `Nous avons bien reçu votre acompte de ${amount} pour le lot ${u} de ${p}.`,
    depositReserved: 'Le logement vous est désormais réservé ; l’équipe de vente vous contactera.',
    depositNotReserved: 'L’équipe de vente vous contactera très vite au sujet du logement.',
    depositRef: (id: string) => `Référence de l’acompte : ${id}`,
    depositTeamSubject: (p: string, u: string) => `Acompte payé : ${u}, ${p}`,
    depositTeamBody: (p: string, u: string, who: string, amount: string) => `${who} a payé un acompte de ${amount} pour le lot ${u} de ${p}.`,
    depositTeamReserved: 'Le lot est désormais réservé.',
    depositTeamNotReserved:
      'Le lot n’a pas pu être réservé : l’option avait pris fin et il n’était plus libre. Remboursez l’acompte ou proposez un autre logement à l’acheteur.',
    depositTeamRef: (id: string) => `Acompte : ${id}`,
    depositTeamAction: 'Le voir dans la console',
    wsSubject: (who: string, p: string) => `Nouvelle fiche de réservation de ${who} : ${p}`,
    wsIntro: (who: string, p: string, buyer: string) => `${who} a soumis une fiche de réservation pour ${p} au nom de ${buyer}.`,
    wsBuyer: 'Acheteur :',
    wsChoices: 'Choix, par ordre de préférence :',
    wsNotes: 'Remarques :',
    wsRealtor: (e: string) => `Courriel du courtier : ${e} (votre décision lui est envoyée)`,
    wsAction: 'L’accepter ou la refuser dans la console :',
    wsAcceptedSubject: (u: string, b: string, p: string) => `Fiche acceptée : ${u} pour ${b} (${p})`,
    wsDeclinedSubject: (b: string, p: string) => `Fiche refusée : ${b} (${p})`,
    wsAccepted: (b: string, p: string, u: string) => `Votre fiche pour ${b} sur ${p} a été acceptée : le logement ${u} lui est réservé.`,
    wsAcceptedNext: 'L’équipe de vente vous contactera pour la suite.',
    wsDeclined: (b: string, p: string) => `Votre fiche pour ${b} sur ${p} a été refusée.`,
    wsDeclinedNext: 'Vous pouvez soumettre une autre fiche avec d’autres choix.',
  },
  es: {
    newEnquiry: (p: string) => `Nueva consulta: ${p}`,
    newHold: (p: string, u: string) => `Unidad ${u} reservada: ${p}`,
    leadIntro: (p: string) => `Un visitante dejó una consulta en ${p}.`,
    holdIntro: (p: string, u: string) => `Un visitante reservó la unidad ${u} de ${p}.`,
    newBooking: (p: string) => `Visita reservada: ${p}`,
    bookingIntro: (p: string) => `Un visitante reservó una visita de ${p} en Cal.com.`,
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
      visit: 'Visita',
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
    depositSubject: (p: string, u: string) => `Depósito recibido: ${u}, ${p}`,
    depositBody: (p: string, u: string, amount: string) => `Hemos recibido su depósito de ${amount} por la unidad ${u} de ${p}.`,
    depositReserved: 'La vivienda queda reservada para usted; el equipo de ventas se pondrá en contacto.',
    depositNotReserved: 'El equipo de ventas se pondrá en contacto con usted en breve sobre la vivienda.',
    depositRef: (id: string) => `Referencia del depósito: ${id}`,
    depositTeamSubject: (p: string, u: string) => `Depósito pagado: ${u}, ${p}`,
    depositTeamBody: (p: string, u: string, who: string, amount: string) => `${who} pagó un depósito de ${amount} por la unidad ${u} de ${p}.`,
    depositTeamReserved: 'La unidad queda reservada.',
    depositTeamNotReserved:
      'No se pudo reservar la unidad: su reserva había terminado y ya no estaba libre. Reembolse el depósito o acuerde otra vivienda con el comprador.',
    depositTeamRef: (id: string) => `Depósito: ${id}`,
    depositTeamAction: 'Verlo en la consola',
    wsSubject: (who: string, p: string) => `Nueva hoja de reserva de ${who}: ${p}`,
    wsIntro: (who: string, p: string, buyer: string) => `${who} envió una hoja de reserva de ${p} para ${buyer}.`,
    wsBuyer: 'Comprador:',
    wsChoices: 'Opciones, por orden de preferencia:',
    wsNotes: 'Notas:',
    wsRealtor: (e: string) => `Correo del agente: ${e} (recibe su decisión por correo)`,
    wsAction: 'Acéptela o recházela en la consola:',
    wsAcceptedSubject: (u: string, b: string, p: string) => `Hoja aceptada: ${u} para ${b} (${p})`,
    wsDeclinedSubject: (b: string, p: string) => `Hoja rechazada: ${b} (${p})`,
    wsAccepted: (b: string, p: string, u: string) => `Su hoja para ${b} en ${p} fue aceptada: la unidad ${u} queda reservada para esa persona.`,
    wsAcceptedNext: 'El equipo de ventas se pondrá en contacto para los próximos pasos.',
    wsDeclined: (b: string, p: string) => `Su hoja para ${b} en ${p} fue rechazada.`,
    wsDeclinedNext: 'Puede enviar otra hoja con otras opciones.',
  },
} as const;

/**
 * A project's message signed with its owner's company: a signature block (`-- ` then the name) at the end of the
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
  /** A lead made by a Cal.com booking: the visit's start. */
  booking?: { startTime?: string | undefined } | undefined;
  createdAt: string;
}

export interface ProjectForMail {
  name: string;
  settings: Record<string, unknown>;
}

/** The sender's name on a project's mail: its formsFromName, when set. */
const fromNameOf = (settings: Record<string, unknown>) =>
  typeof settings.formsFromName === 'string' && settings.formsFromName.trim() ? settings.formsFromName.trim() : undefined;

const FIELD_ORDER = ['firstName', 'lastName', 'email', 'phone', 'unit', 'visit', 'message', 'source', 'questions', 'customFields', 'createdAt'] as const;

/** The sales team's notice of a lead or a hold: every field, the unit by name, Reply-To the visitor. */
export function leadNotification(project: ProjectForMail, lead: LeadForMail, unitName: string | undefined, to: string[], now: number): Mail {
  const lang = langOf(project.settings.projectLang);
  const w = WORDS[lang];
  const hold = lead.source === 'hold';
  const booked = lead.source === 'booking';
  const customSubject =
    typeof project.settings.formsSubject === 'string' && project.settings.formsSubject.trim() ? project.settings.formsSubject.trim() : undefined;
  const subject = customSubject ?? (hold && unitName ? w.newHold(project.name, unitName) : booked ? w.newBooking(project.name) : w.newEnquiry(project.name));
  const visit = lead.booking?.startTime ? projectTime(lead.booking.startTime, project.settings, lang) : undefined;
  const rows: [string, string][] = [];
  for (const key of FIELD_ORDER) {
    const value = key === 'unit' ? (lead.unit ? (unitName ? `${unitName} (${lead.unit})` : lead.unit) : undefined) : key === 'visit' ? visit : lead[key];
    if (value === undefined || value === null || value === '') continue;
    rows.push([w.fields[key], show(value)]);
  }
  const intro = hold && unitName ? w.holdIntro(project.name, unitName) : booked ? w.bookingIntro(project.name) : w.leadIntro(project.name);
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

/** A deposit as its two mails tell it (the receipt to the buyer, the notice to the sales team), in the project's language. */
export interface DepositForMail {
  project: ProjectForMail;
  projectId: string;
  unitName: string;
  buyer: { name: string; email: string };
  /** Written for people: the amount in the currency's major unit, formatted in the project's language. */
  amountText: string;
  depositId: string;
  /** False when the unit could not be reserved any more (the hold lapsed and someone else took it). */
  reserved: boolean;
  /** The console's Deposits tab showing this deposit, for the sales team's notice. */
  consoleLink: string;
  now: number;
}

/** The buyer's receipt for a paid deposit; Reply-To the sales team. */
export function depositReceiptMail(input: DepositForMail): Mail {
  const lang = langOf(input.project.settings.projectLang);
  const w = WORDS[lang];
  const hello = w.hello(greetingName(input.buyer.name.split(' ')[0]));
  const body = `${w.depositBody(input.project.name, input.unitName, input.amountText)} ` + (input.reserved ? w.depositReserved : w.depositNotReserved);
  const ref = w.depositRef(input.depositId);
  const replyTo = typeof input.project.settings.formsSendTo === 'string' ? input.project.settings.formsSendTo.split(',')[0]?.trim() : undefined;
  return {
    to: [input.buyer.email],
    fromName: fromNameOf(input.project.settings),
    replyTo: replyTo || undefined,
    subject: w.depositSubject(input.project.name, input.unitName),
    text: `${hello}\n\n${body}\n\n${ref}\n`,
    html: page(lang, `<p>${escapeHtml(hello)}</p><p>${escapeHtml(body)}</p><p>${escapeHtml(ref)}</p>`),
    date: input.now,
    project: input.projectId,
  };
}

/** The sales team's notice of a paid deposit, with the console's link to it; Reply-To the buyer. */
export function depositNotice(input: DepositForMail, to: string[]): Mail {
  const lang = langOf(input.project.settings.projectLang);
  const w = WORDS[lang];
  const who = input.buyer.name ? `${input.buyer.name} (${input.buyer.email})` : input.buyer.email;
  const body =
    `${w.depositTeamBody(input.project.name, input.unitName, who, input.amountText)} ` + (input.reserved ? w.depositTeamReserved : w.depositTeamNotReserved);
  const ref = w.depositTeamRef(input.depositId);
  return {
    to,
    fromName: fromNameOf(input.project.settings),
    replyTo: input.buyer.email,
    subject: w.depositTeamSubject(input.project.name, input.unitName),
    text: `${body}\n\n${ref}\n${w.depositTeamAction}: ${input.consoleLink}\n`,
    html: page(
      lang,
      `<p>${escapeHtml(body)}</p><p>${escapeHtml(ref)}</p><p><a href="${escapeHtml(input.consoleLink)}">${escapeHtml(w.depositTeamAction)}</a></p>`,
    ),
    date: input.now,
    project: input.projectId,
  };
}

/** Plans (docs/billing.md): the owner's notice that a payment failed, sent before anything is taken down. */
export function planPaymentFailedMail(input: { to: string; plan: string; periodEnd: string; published: number; link: string; now: number }): Mail {
  const body =
    `The payment for your Showsuite ${input.plan} plan failed. Your ${input.published} published project${input.published === 1 ? ' stays' : 's stay'} ` +
    `published until ${input.periodEnd}, the end of the period already paid. If the payment has not gone through by then, ` +
    'they go to draft (their pages stop answering) until you publish them again on a plan.';
  const action = 'Update your payment details';
  return {
    to: [input.to],
    subject: `Payment failed: your Showsuite ${input.plan} plan`,
    text: `${body}\n\n${action}: ${input.link}\n`,
    html: page('en', `<p>${escapeHtml(body)}</p>${linkBlock(input.link, action, 'Nothing else changes until then.')}`),
    date: input.now,
  };
}

/** Plans: the owner's notice that their plan ended unpaid and which projects go to draft (queued before they do). */
export function planLapsedMail(input: { to: string; projects: string[]; link: string; now: number }): Mail {
  const body =
    'Your Showsuite plan ended without payment, so your published projects go to draft now: their pages stop answering ' +
    'until you publish them again on a plan. Nothing in them is deleted.';
  const list = input.projects.map((p) => `- ${p}`).join('\n');
  const action = 'Choose a plan';
  return {
    to: [input.to],
    subject: 'Your Showsuite plan ended: projects moved to draft',
    text: `${body}\n\n${list}\n\n${action}: ${input.link}\n`,
    html: page(
      'en',
      `<p>${escapeHtml(body)}</p><ul>${input.projects.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul>${linkBlock(input.link, action, 'Publishing a project again needs a plan.')}`,
    ),
    date: input.now,
  };
}

/** A worksheet as its mail needs it: the buyer, the choices by unit name, the realtor's own notes and address. */
export interface WorksheetMailInput {
  project: ProjectForMail;
  projectId: string;
  allocation: string;
  buyer: { firstName: string; lastName: string; email: string; phone: string };
  /** The choices' unit names, in order of preference. */
  choices: string[];
  notes?: string | undefined;
  realtorEmail?: string | undefined;
  now: number;
}

const wsBuyerName = (input: WorksheetMailInput) => `${input.buyer.firstName} ${input.buyer.lastName}`.trim();

/** The sales team's notice of a worksheet, in the project's language; Reply-To the realtor when they left an address. */
export function worksheetNotice(input: WorksheetMailInput, to: string[], consoleLink: string): Mail {
  const w = WORDS[langOf(input.project.settings.projectLang)];
  const buyer = wsBuyerName(input);
  const lines = [
    w.wsIntro(input.allocation, input.project.name, buyer),
    `${w.wsBuyer} ${buyer}, ${input.buyer.email}, ${input.buyer.phone}`,
    `${w.wsChoices}\n${input.choices.map((name, i) => `${i + 1}. ${name}`).join('\n')}`,
    ...(input.notes ? [`${w.wsNotes} ${input.notes}`] : []),
    ...(input.realtorEmail ? [w.wsRealtor(input.realtorEmail)] : []),
    `${w.wsAction} ${consoleLink}`,
  ];
  return {
    to,
    fromName: fromNameOf(input.project.settings),
    replyTo: input.realtorEmail,
    subject: w.wsSubject(input.allocation, input.project.name),
    text: `${lines.join('\n\n')}\n`,
    html: page(langOf(input.project.settings.projectLang), paragraphs(lines.join('\n\n'))),
    date: input.now,
    project: input.projectId,
  };
}

/** The realtor's notice of the sales team's decision, in the project's language. */
export function worksheetDecision(input: WorksheetMailInput & { realtorEmail: string }, accepted: boolean, unitName: string | undefined): Mail {
  const lang = langOf(input.project.settings.projectLang);
  const w = WORDS[lang];
  const buyer = wsBuyerName(input);
  const lines = accepted
    ? [w.wsAccepted(buyer, input.project.name, unitName ?? ''), w.wsAcceptedNext]
    : [w.wsDeclined(buyer, input.project.name), w.wsDeclinedNext];
  return {
    to: [input.realtorEmail],
    fromName: fromNameOf(input.project.settings),
    subject: accepted ? w.wsAcceptedSubject(unitName ?? '', buyer, input.project.name) : w.wsDeclinedSubject(buyer, input.project.name),
    text: `${lines.join('\n\n')}\n`,
    html: page(lang, paragraphs(lines.join('\n\n'))),
    date: input.now,
    project: input.projectId,
  };
}
