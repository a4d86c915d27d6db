import type { FieldError } from '../../http/errors.ts';
import { perimeterProblem } from './perimeter.ts';
import { invalid } from './records.ts';

/** A `perimeter` the map cannot draw, as the field error a save answers with (docs/map.md gives the forms). */
export function perimeterErrors(value: unknown, path = '/perimeter'): FieldError[] {
  const problem = perimeterProblem(value);
  return problem === undefined ? [] : [{ path, message: problem }];
}

/** 400 naming `perimeter` when it is sent and cannot be drawn. */
export function checkPerimeter(value: unknown) {
  const errors = perimeterErrors(value);
  if (errors.length) invalid(errors);
}
