import { deepEqual } from '../shared/records.ts';
import { type UnitRow } from '../units/units.record.ts';
import { holdLive, shownAvailability } from '../holds/hold-rules.ts';
import type { ParsedTable } from './csv.ts';
import { availabilityReader, IMPORT_FIELDS, mapColumns, readCell } from './import.fields.ts';

export interface FloorState {
  id: string;
  name: string;
  position: number;
  version: number;
}

export interface InventoryState {
  floors: FloorState[];
  units: UnitRow[];
}

export interface ImportSettings {
  ftpMapping?: { header?: string; property?: string }[];
  yiStatusMapping?: Record<string, string | undefined>;
  /** Unit-name patterns (`*` any run of characters), comma-separated; only for feed pulls. */
  whitelist?: string | undefined;
  blacklist?: string | undefined;
  /** Rows only update the units they name, never create or rename one: a row naming no unit is skipped (RENTCafé). */
  updateOnly?: boolean;
}

export interface RowError {
  row: number;
  column: string | null;
  message: string;
}

export interface Change {
  row: number;
  action: 'create' | 'update' | 'unchanged';
  unit: string | null;
  name: string;
  floor: string | null;
  fields: Record<string, [unknown, unknown]>;
}

/** A unit the import creates: `floorKey` names an existing floor id or a floor the import creates. */
export interface UnitCreate {
  row: number;
  name: string;
  floorId: string | null;
  newFloor: string | null;
  values: Record<string, unknown>;
}

export interface UnitUpdate {
  row: number;
  unit: UnitRow;
  /** Only the fields that change (availability of a live hold already removed). */
  values: Record<string, unknown>;
  floorId: string | null | undefined;
  newFloor: string | null;
}

export interface ImportPlan {
  changes: Change[];
  errors: RowError[];
  unknownColumns: string[];
  kept: { row: number; unit: string; name: string }[];
  skipped: number;
  newFloors: string[];
  creates: UnitCreate[];
  updates: UnitUpdate[];
}

/** `*` matches any run of characters; everything else literally, any case. */
export function namePatterns(list: string | undefined): RegExp[] {
  return (list ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map(
      (p) =>
        new RegExp(
          `^${p
            .split('*')
            .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*')}$`,
          'i',
        ),
    );
}

const OBJECT_ID = /^[0-9a-f]{24}$/;

/**
 * The whole import decided without writing anything: which rows create, change or leave which units, every row
 * error with its row and column, and the live holds kept. Applying it writes exactly what a dry run showed.
 */
export function planImport(
  table: ParsedTable | { headers: string[]; rows: ParsedTable['rows'] },
  state: InventoryState,
  settings: ImportSettings,
  now: number,
): ImportPlan {
  const { fields: columns, unknownColumns } = mapColumns(table.headers, settings.ftpMapping);
  const readAvailability = availabilityReader(settings.yiStatusMapping);
  const white = namePatterns(settings.whitelist);
  const black = namePatterns(settings.blacklist);

  const floorById = new Map(state.floors.map((f) => [f.id, f]));
  const floorByName = new Map<string, FloorState>();
  for (const f of [...state.floors].sort((a, b) => a.position - b.position))
    if (!floorByName.has(f.name.toLowerCase())) floorByName.set(f.name.toLowerCase(), f);
  const unitById = new Map(state.units.map((u) => [u.id, u]));
  const unitsByName = new Map<string, UnitRow[]>();
  for (const u of state.units) {
    const key = u.name.toLowerCase();
    unitsByName.set(key, [...(unitsByName.get(key) ?? []), u]);
  }
  const floorName = (id: string | null | undefined) => (id ? (floorById.get(id)?.name ?? id) : null);

  const plan: ImportPlan = { changes: [], errors: [], unknownColumns, kept: [], skipped: 0, newFloors: [], creates: [], updates: [] };
  const newFloors = new Map<string, string>();
  const claimedBy = new Map<string, number>();

  for (const { row, cells } of table.rows) {
    const values: Record<string, unknown> = {};
    const headerOf: Record<string, string> = {};
    const errors: RowError[] = [];
    for (const [header, field] of columns) {
      headerOf[field] = header;
      const kind = IMPORT_FIELDS[field];
      // mapColumns maps headers to IMPORT_FIELDS' names only.
      if (kind === undefined) throw new Error(`import: no field kind for ${field}`);
      const r = readCell(field, kind, cells[header], readAvailability);
      if ('error' in r) errors.push({ row, column: header, message: r.error });
      else if ('value' in r) values[field] = r.value;
    }
    const col = (field: string) => headerOf[field] ?? field;

    // Feed lists pick rows by the unit name in the row, or the current name of the unit its _id names.
    const rowName = (values.name as string | undefined) ?? (typeof values._id === 'string' ? unitById.get(values._id)?.name : undefined) ?? '';
    if ((white.length && !white.some((p) => p.test(rowName))) || black.some((p) => p.test(rowName))) {
      plan.skipped += 1;
      continue;
    }

    // The floor the row names: an id of this project's floor, else a floor name (created when new).
    let floorId: string | null | undefined;
    let newFloor: string | null = null;
    if (typeof values.floor === 'string') {
      const f = values.floor;
      const named = floorByName.get(f.toLowerCase());
      if (floorById.has(f)) floorId = f;
      else if (named) floorId = named.id;
      else if (OBJECT_ID.test(f)) errors.push({ row, column: col('floor'), message: 'is not a floor of this project' });
      else newFloor = newFloors.get(f.toLowerCase()) ?? f;
    }

    let unit: UnitRow | undefined;
    if (typeof values._id === 'string') {
      unit = unitById.get(values._id);
      if (!unit) errors.push({ row, column: col('_id'), message: 'is not a unit of this project' });
    } else if (typeof values.name === 'string') {
      const candidates = (unitsByName.get(values.name.toLowerCase()) ?? []).filter(
        (u) => newFloor === null && (floorId === undefined || u.floor_id === floorId),
      );
      if (candidates.length > 1)
        errors.push({ row, column: col('name'), message: `names ${candidates.length} units on different floors; add a floor column or _id` });
      unit = candidates[0];
    } else if (!errors.some((e) => e.column === col('name') || e.column === col('_id'))) {
      errors.push({ row, column: col('name'), message: 'is required (or _id)' });
    }

    if (!unit && settings.updateOnly) {
      plan.skipped += 1;
      continue;
    }

    const target = unit ? unit.id : `new:${(newFloor ?? floorId ?? '').toLowerCase()}:${typeof values.name === 'string' ? values.name.toLowerCase() : ''}`;
    if (!errors.length && claimedBy.has(target))
      errors.push({ row, column: col(unit ? '_id' : 'name'), message: `is the same unit as row ${claimedBy.get(target)}` });
    if (!errors.length && !unit && values.availability === 'on_hold')
      errors.push({ row, column: col('availability'), message: 'on_hold is placed by a hold, not by an import' });

    const live = unit ? holdLive(unit, now) : false;
    if (!errors.length && unit && values.availability === 'on_hold' && !live) {
      errors.push({ row, column: col('availability'), message: 'on_hold is placed by a hold, not by an import (this unit is not held)' });
    }
    if (errors.length) {
      plan.errors.push(...errors);
      continue;
    }
    claimedBy.set(target, row);
    if (newFloor !== null && !newFloors.has(newFloor.toLowerCase())) {
      newFloors.set(newFloor.toLowerCase(), newFloor);
      plan.newFloors.push(newFloor);
    }
    const { _id, floor, ...sent } = values;
    // The name only finds the unit (in any case); the unit keeps its own spelling.
    if (settings.updateOnly) delete sent.name;

    if (!unit) {
      const fieldsOut: Record<string, [unknown, unknown]> = {};
      for (const [k, v] of Object.entries(sent)) fieldsOut[k] = [null, v];
      if (floor !== undefined) fieldsOut.floor = [null, newFloor ?? floorName(floorId)];
      plan.creates.push({ row, name: sent.name as string, floorId: floorId ?? null, newFloor, values: sent });
      plan.changes.push({ row, action: 'create', unit: null, name: sent.name as string, floor: newFloor ?? floorName(floorId), fields: fieldsOut });
      continue;
    }

    // The unit's current value of a field as its record shows it (as toUnit would, without building the record).
    const current = (k: string): unknown =>
      k === 'name' ? unit.name : k === 'position' ? unit.position : k === 'availability' ? shownAvailability(unit, now) : unit.data[k];
    const fieldsOut: Record<string, [unknown, unknown]> = {};
    const changed: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(sent)) {
      if (k === 'availability' && live && v !== 'on_hold') {
        plan.kept.push({ row, unit: unit.id, name: unit.name });
        continue;
      }
      const before = current(k);
      if (!deepEqual(before, v)) {
        fieldsOut[k] = [before ?? null, v];
        changed[k] = v;
      }
    }
    const moves = floor !== undefined && (newFloor !== null || floorId !== unit.floor_id);
    if (moves) fieldsOut.floor = [floorName(unit.floor_id), newFloor ?? floorName(floorId)];
    const action = Object.keys(fieldsOut).length ? 'update' : 'unchanged';
    if (action === 'update') plan.updates.push({ row, unit, values: changed, floorId: moves ? floorId : undefined, newFloor: moves ? newFloor : null });
    plan.changes.push({
      row,
      action,
      unit: unit.id,
      name: unit.name,
      floor: moves ? (newFloor ?? floorName(floorId)) : floorName(unit.floor_id),
      fields: fieldsOut,
    });
  }
  return plan;
}

export function summarise(plan: ImportPlan) {
  const count = (a: Change['action']) => plan.changes.filter((c) => c.action === a).length;
  return {
    created: count('create'),
    updated: count('update'),
    unchanged: count('unchanged'),
    kept: plan.kept.length,
    errors: plan.errors.length,
    skipped: plan.skipped,
  };
}
