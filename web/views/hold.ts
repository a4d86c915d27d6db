/**
 * The holder's panel in a unit's sheet: "Held for you" with the countdown (ticked by the sheet), until when, and
 * Extend (once) and Release. After a release, or when the hold has ended, a line saying so.
 */
import { h } from '../dom.ts';
import { clock } from '../format.ts';
import { extendMine, holdBusy, holdEndedAt, holdNotes, myHold, releaseMine, type HoldNote } from '../holds.ts';
import { flag, settings } from '../state.ts';

const WORDS = {
  en: {
    until: 'until',
    heldForYou: 'Held for you',
    extend: (m: number) => `Extend by ${m} min`,
    release: 'Release',
    releaseLabel: (u: string) => `Release my hold on ${u}`,
    extendedOnce: 'Extended: a hold can be extended once.',
    notes: {
      released: 'Released: this home is open to everyone again.',
      expired: 'Your hold on this home has ended: its time ran out. The home is open to everyone again.',
      ended: 'Your hold on this home has ended.',
      'link-ended': 'The hold this link was for has ended. The home is open to everyone again.',
      failed: 'That did not go through; please try again.',
    } satisfies Record<HoldNote, string>,
    endedAt: (time: string) => `Your hold ended at ${time}. The home is open to everyone again.`,
    holdAgain: 'Hold again',
    lostRace: 'Someone else held this home a moment before you, so it could not be held for you.',
    stillEnquire: 'You can still send an enquiry below.',
  },
  fr: {
    until: 'jusqu’à',
    heldForYou: 'Réservé pour vous',
    extend: (m: number) => `Prolonger de ${m} min`,
    release: 'Libérer',
    releaseLabel: (u: string) => `Libérer mon option sur ${u}`,
    extendedOnce: 'Prolongée : une option se prolonge une seule fois.',
    notes: {
      released: 'Libéré : ce logement est de nouveau ouvert à tous.',
      expired: 'Votre option sur ce logement a pris fin : son temps est écoulé. Le logement est de nouveau ouvert à tous.',
      ended: 'Votre option sur ce logement a pris fin.',
      'link-ended': 'L’option de ce lien a pris fin. Le logement est de nouveau ouvert à tous.',
      failed: 'Cela n’a pas abouti ; veuillez réessayer.',
    },
    endedAt: (time: string) => `Votre option a pris fin à ${time}. Le logement est de nouveau ouvert à tous.`,
    holdAgain: 'Réserver à nouveau',
    lostRace: 'Quelqu’un d’autre a réservé ce logement juste avant vous : il n’a pas pu vous être réservé.',
    stillEnquire: 'Vous pouvez toujours envoyer une demande ci-dessous.',
  },
  es: {
    until: 'hasta las',
    heldForYou: 'Reservada para usted',
    extend: (m: number) => `Prolongar ${m} min`,
    release: 'Liberar',
    releaseLabel: (u: string) => `Liberar mi reserva de ${u}`,
    extendedOnce: 'Prolongada: una reserva se prolonga una sola vez.',
    notes: {
      released: 'Liberada: esta unidad vuelve a estar abierta a todos.',
      expired: 'Su reserva de esta unidad ha terminado: se acabó su tiempo. La unidad vuelve a estar abierta a todos.',
      ended: 'Su reserva de esta unidad ha terminado.',
      'link-ended': 'La reserva de este enlace ha terminado. La unidad vuelve a estar abierta a todos.',
      failed: 'No se pudo completar; inténtelo de nuevo.',
    },
    endedAt: (time: string) => `Su reserva terminó a las ${time}. La unidad vuelve a estar abierta a todos.`,
    holdAgain: 'Reservar de nuevo',
    lostRace: 'Otra persona reservó esta unidad un momento antes que usted, así que no se pudo reservar para usted.',
    stillEnquire: 'Aún puede enviar una consulta abajo.',
  },
};

const words = () => (WORDS as Partial<Record<string, (typeof WORDS)['en']>>)[document.documentElement.lang] ?? WORDS.en;

/** Keyboard focus stays in the panel when it is redrawn: on `id` if it is still there, else on what it says. */
function refocus(id: string) {
  (document.getElementById(id) ?? document.getElementById('hold-note'))?.focus({ preventScroll: true });
}

/** The status badge of the holder's own unit, wherever it is drawn (others see "On hold"); the sheet's has an id. */
export const holdBadge = (id?: string) => h('span', { class: 'badge s-available held-mine', id }, words().heldForYou);

/** How a unit's status reads to this visitor: "Held for you" on their own hold. */
export const statusFor = (u: { _id: string; availability: string }, text: string) => (myHold(u._id) ? words().heldForYou : text);

/** What the page says when a hold was lost to someone else a moment before (the hold answered 409). */
export const lostRaceText = (canEnquire: boolean) => (canEnquire ? `${words().lostRace} ${words().stillEnquire}` : words().lostRace);

/**
 * The panel for unit `u`, or nothing when the visitor has no hold on it and nothing to say about one. A hold that
 * ended (its time ran out, or its mailed link is opened after) says so, with "Hold again" while the unit can be held.
 */
export function holdPanel(u: { _id: string; name: string; availability: string }, holdAgain: () => void): HTMLElement | undefined {
  const w = words();
  const mine = myHold(u._id);
  const note = holdNotes.get(u._id);
  const endedAt = note === 'expired' ? holdEndedAt.get(u._id) : undefined;
  const noteLine = note
    ? h(
        'p',
        { class: note === 'released' ? 'held' : 'notice', id: 'hold-note', role: note === 'failed' ? 'alert' : 'status', tabindex: '-1' },
        endedAt ? w.endedAt(clock(endedAt)) : w.notes[note],
      )
    : undefined;
  const again =
    !mine && (note === 'expired' || note === 'ended' || note === 'link-ended') && flag('onHoldExperienceEnabled') && u.availability === 'available'
      ? h('button', { type: 'button', class: 'primary', id: 'hold-again', onclick: holdAgain }, w.holdAgain)
      : undefined;
  if (!mine) return noteLine ? h('section', { class: 'hold-panel', id: 'hold-panel', tabindex: '-1' }, noteLine, again) : undefined;
  const minutes =
    typeof settings().onHoldMinsDuration === 'number' && (settings().onHoldMinsDuration as number) > 0 ? (settings().onHoldMinsDuration as number) : 5;
  const busy = holdBusy(u._id);
  return h(
    'section',
    { class: 'hold-panel mine', id: 'hold-panel', 'aria-labelledby': 'hold-countdown', tabindex: '-1' },
    h('p', { class: 'held', id: 'hold-countdown', role: 'timer' }),
    h('p', { class: 'hold-until', id: 'hold-mine-until' }, `${w.until} ${clock(mine.expiresAt)}`),
    h(
      'div',
      { class: 'hold-actions' },
      mine.extended
        ? undefined
        : h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              id: 'hold-extend',
              disabled: busy,
              onclick: () => void extendMine(u._id).then(() => refocus('hold-release')),
            },
            w.extend(minutes),
          ),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          id: 'hold-release',
          disabled: busy,
          'aria-label': w.releaseLabel(u.name),
          onclick: () => void releaseMine(u._id).then(() => refocus('hold-release')),
        },
        w.release,
      ),
    ),
    mine.extended ? h('p', { class: 'hold-until', id: 'hold-extended' }, w.extendedOnce) : undefined,
    noteLine,
  );
}
