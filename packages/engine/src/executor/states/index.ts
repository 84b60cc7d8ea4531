/** One module per ASL state type, as the spec is organised; the kernel looks a state's module up here. */
import type { StateType } from '../../definition';
import type { StateModule } from '../step';
import { choiceState } from './choice';
import { failState } from './fail';
import { mapState } from './map';
import { parallelState } from './parallel';
import { passState } from './pass';
import { succeedState } from './succeed';
import { taskState } from './task';
import { waitState } from './wait';

/** The module of each state type. */
export const STATE_MODULES: Readonly<Record<StateType, StateModule>> = {
  Pass: passState,
  Task: taskState,
  Choice: choiceState,
  Wait: waitState,
  Succeed: succeedState,
  Fail: failState,
  Parallel: parallelState,
  Map: mapState,
};
