/**
 * What CreateStateMachine accepts and refuses, as AWS answered (localstack's AWS-validated snapshots:
 * outputdecl/test_output, assign/test_assign_base, scenarios/test_base_scenarios, credentials,
 * test_sfn_api_express). asl-validator's schema is stricter than the service; where they disagree the
 * service's answer is the one pinned here.
 */
import { describe, expect, it } from 'vitest';
import { jsonata, jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const engine = recordedEngine();
const express = recordedEngine({}, { express: true });

describe('accepted as AWS accepts them', () => {
  it.each([
    ['a number', 0.1],
    ['a boolean', true],
    ['null', null],
    ['a list', [null, 0, 'x', { constant: 0 }]],
    ['a plain string', 'constant string'],
    ['a double quote', '"'],
  ])('Output as %s on a JSONata Pass, given back as written', async (_what, output) => {
    const run = await engine.run(jsonata({ State0: { Type: 'Pass', Output: output, End: true } }), { input_value: 1 });
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output });
  });

  it('strings holding {% %} that are not wholly an expression are literals', async () => {
    const output = {
      constant_not_jsonata: ' {% states.input %} ',
      constant_lst: [' {% states.input %} ', '$states.input'],
    };
    const run = await engine.run(jsonata({ State0: { Type: 'Pass', Output: output, End: true } }), {});
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output });
  });

  it.each([
    [
      'JSONata',
      jsonata({
        State0: { Type: 'Pass', Assign: { constant_lst: [null, 0, 0.1, true, [], { constant: 0 }] }, Next: 'S1' },
        S1: { Type: 'Pass', Output: '{% $constant_lst %}', End: true },
      }),
    ],
    [
      'JSONPath',
      jsonpath({
        State0: { Type: 'Pass', Assign: { constant_lst: [null, 0, 0.1, true, [], { constant: 0 }] }, Next: 'S1' },
        S1: { Type: 'Pass', Parameters: { 'v.$': '$constant_lst' }, OutputPath: '$.v', End: true },
      }),
    ],
  ])('%s Assign holding a list with null, lists and objects', async (_language, definition) => {
    expect((await engine.run(definition, {})).outcome).toEqual({
      status: 'SUCCEEDED',
      output: [null, 0, 0.1, true, [], { constant: 0 }],
    });
  });

  it.each([
    [true, 'ConditionTrue'],
    [false, 'DefaultState'],
  ])('a constant Condition %s', async (condition, next) => {
    const def = jsonata({
      ChoiceState: {
        Type: 'Choice',
        Choices: [{ Condition: condition, Next: 'ConditionTrue' }],
        Default: 'DefaultState',
      },
      ConditionTrue: { Type: 'Pass', Output: 'true branch', End: true },
      DefaultState: { Type: 'Pass', Output: 'default', End: true },
    });
    const run = await engine.run(def, {});
    expect(run.events.find((e) => e.type === 'PassStateEntered')?.stateEnteredEventDetails).toMatchObject({
      name: next,
    });
  });

  it.each([
    [true, 'Condition Output block'],
    [false, 'Default Output block'],
  ])('Output strings on a JSONata Choice and its rule (condition %s)', async (condition, output) => {
    const def = jsonata({
      ChoiceState: {
        Type: 'Choice',
        Choices: [{ Condition: '{% $states.input.condition %}', Next: 'Done', Output: 'Condition Output block' }],
        Default: 'Done',
        Output: 'Default Output block',
      },
      Done: { Type: 'Pass', End: true },
    });
    expect((await engine.run(def, { condition })).outcome).toEqual({ status: 'SUCCEEDED', output });
  });
});

describe('refused as AWS refuses them', () => {
  const lambdaTask = {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke',
    Parameters: { FunctionName: 'f' },
    End: true,
  };

  it('a Credentials block without RoleArn', async () => {
    expect(await engine.create(jsonpath({ State0: { ...lambdaTask, Credentials: {} } }))).toEqual({
      name: 'InvalidDefinition',
      message:
        "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: The field 'RoleArn' is required but was missing at /States/State0/Credentials'",
    });
  });

  it('Credentials with a RoleArn is accepted', async () => {
    expect(
      await engine.create(
        jsonpath({ State0: { ...lambdaTask, Credentials: { RoleArn: 'arn:aws:iam::111111111111:role/r' } } }),
      ),
    ).toBe('created');
  });

  it.each(['arn:aws:states:::states:startExecution.sync', 'arn:aws:states:::states:startExecution.sync:2'])(
    '%s in an EXPRESS machine',
    async (resource) => {
      const def = jsonpath({
        StartExecution: {
          Type: 'Task',
          Resource: resource,
          Parameters: { StateMachineArn: 'arn:aws:states:us-east-1:111111111111:stateMachine:x' },
          End: true,
        },
      });
      expect(await express.create(def)).toEqual({
        name: 'InvalidDefinition',
        message:
          "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: Express state machine does not support '.sync' service integration at /States/StartExecution/Resource'",
      });
      expect(await engine.create(def)).toBe('created');
    },
  );

  const syncDef = jsonpath({
    Start: {
      Type: 'Task',
      Resource: 'arn:aws:states:::states:startExecution.sync:2',
      Parameters: { StateMachineArn: 'arn:aws:states:us-east-1:111111111111:stateMachine:x' },
      End: true,
    },
  });

  it('.sync given to UpdateStateMachine of an EXPRESS machine', async () => {
    const arn = await express.harness.machine(jsonpath({ P: { Type: 'Pass', End: true } }), undefined, {
      type: 'EXPRESS',
    });
    await expect(
      express.harness.call('UpdateStateMachine', { stateMachineArn: arn, definition: JSON.stringify(syncDef) }),
    ).rejects.toMatchObject({ name: 'InvalidDefinition' });
  });

  it('.sync checked by ValidateStateMachineDefinition for type EXPRESS only', async () => {
    const validate = (type?: string) =>
      engine.harness.call('ValidateStateMachineDefinition', {
        definition: JSON.stringify(syncDef),
        ...(type ? { type } : {}),
      });
    expect(await validate('EXPRESS')).toMatchObject({
      result: 'FAIL',
      diagnostics: [{ code: 'SCHEMA_VALIDATION_FAILED', location: '/States/Start/Resource' }],
    });
    expect(await validate()).toMatchObject({ result: 'OK' });
  });
});

const refusal = (problem: string) => ({
  name: 'InvalidDefinition',
  message: `Invalid State Machine Definition: '${problem}'`,
});

describe('a Distributed Map Label as AWS checks it', () => {
  // recorded on AWS: localstack tests/aws/services/stepfunctions/v2/test_sfn_api_map_run.snapshot.json::
  // test_map_state_label_invalid_char_fail[*] (each character below), test_map_state_label_empty_fail,
  // test_map_state_label_too_long_fail: CreateStateMachine answers InvalidDefinition. (The recorded message is
  // not in AWS's words, so the test pins the error and where it points.) AWS's Distributed Map docs: a Label
  // is at most 40 characters, without whitespace, ? *, < > { } [ ], : ; , \ | ^ ~ $ # % & ` " or control characters.
  const labelled = (label: string) =>
    jsonpath({
      MapState: {
        Type: 'Map',
        ItemProcessor: {
          ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
          StartAt: 'IteratorInner',
          States: { IteratorInner: { Type: 'Pass', End: true } },
        },
        Label: label,
        End: true,
      },
    });
  const RECORDED_INVALID = [...' ?*<>{}[]:;,\\|^~$#%&`"'].concat(
    Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
    Array.from({ length: 0x21 }, (_, i) => String.fromCharCode(0x7f + i)),
  );

  it(`refuses each of the ${RECORDED_INVALID.length} recorded characters`, async () => {
    const accepted: string[] = [];
    for (const ch of RECORDED_INVALID) {
      const answer = await engine.create(labelled(`label_${ch}`));
      if (
        answer === 'created' ||
        answer.name !== 'InvalidDefinition' ||
        !answer.message.includes(' at /States/MapState/Label')
      )
        accepted.push(JSON.stringify(ch));
    }
    expect(accepted).toEqual([]);
  });

  it.each([
    ['an empty Label', ''],
    ['a Label of 41 characters', '12345678901234567890123456789012345678901'],
  ])('refuses %s', async (_what, label) => {
    expect(await engine.create(labelled(label))).toMatchObject({
      name: 'InvalidDefinition',
      message: expect.stringContaining(' at /States/MapState/Label'),
    });
  });

  it('accepts a Label of 40 characters of letters, digits, - _ . and non-ASCII letters', async () => {
    // recorded on AWS: test_base_scenarios.snapshot.json::test_map_state_label (a Distributed Map with Label "TestMap" ran)
    expect(await engine.create(labelled('Map-State_Label.0123456789012345678901é'))).toBe('created');
  });
});

describe('Wait Timestamp checked at creation as AWS does', () => {
  // recorded on AWS: test_base_scenarios.snapshot.json::test_wait_timestamp_invalid[NO_T|NO_Z|INVALID_DATE|INVALID_TIME|INVALID_ISO|JSONATA]
  const wait = (timestamp: string) =>
    jsonpath({ WaitUntil: { Type: 'Wait', Timestamp: timestamp, End: true } }, { Comment: 'WAIT_TIMESTAMP' });
  it.each([
    ['NO_T', '2016-12-05 21:29:29Z'],
    ['NO_Z', '2016-12-05T21:29:29'],
    ['INVALID_DATE', '2016-13-05T21:29:29Z'],
    ['INVALID_TIME', '2016-12-05T25:29:29Z'],
    ['INVALID_ISO', '05-12-2016T21:29:29Z'],
    ['JSONATA (an expression in a JSONPath state is a plain string)', "{% '2016-03-14T01:59:00Z' %}"],
  ])('refuses %s in AWS words', async (_id, timestamp) => {
    expect(await engine.create(wait(timestamp))).toEqual(
      refusal('SCHEMA_VALIDATION_FAILED: String does not match RFC3339 timestamp at /States/WaitUntil/Timestamp'),
    );
  });

  it.each([
    ['SECONDS', '2016-03-14T01:59:00Z'],
    ['NANOSECONDS', '2016-03-05T21:29:29.243167252Z'],
  ])(
    'accepts %s (recorded on AWS: test_base_scenarios.snapshot.json::test_wait_timestamp[%s])',
    async (_id, timestamp) => {
      expect(await engine.create(wait(timestamp))).toBe('created');
    },
  );
});

describe('intrinsic string literals take only the escapes AWS takes', () => {
  // recorded on AWS: test_base_scenarios.snapshot.json::test_illegal_escapes[ESCAPE_SEQUENCES_ILLEGAL_INTRINSIC_FUNCTION(_2)]
  it.each([
    ['States.StringToJson', 'States.StringToJson(\'{"text":"An \\"escaped double quote\\" here"}\')'],
    ['States.Format', 'States.Format(\'He said, \\"Hello, {}!\\"\', \'Test \\"Name\\" Here\')'],
  ])('%s with \\" in a literal is refused', async (_fn, call) => {
    expect(
      await engine.create(jsonpath({ IntrinsicEscape: { Type: 'Pass', Parameters: { 'parsed.$': call }, End: true } })),
    ).toEqual(
      refusal(
        "SCHEMA_VALIDATION_FAILED: The value for the field 'parsed.$' must be a valid JSONPath or a valid intrinsic function call at /States/IntrinsicEscape/Parameters",
      ),
    );
  });

  it("\\' \\{ \\} stay escapes (AWS's intrinsic-functions docs: reserved characters ' { } \\ are escaped with a backslash)", async () => {
    expect(
      await engine.create(
        jsonpath({ P: { Type: 'Pass', Parameters: { 'v.$': "States.Format('It\\'s \\{\\} {}', 'x')" }, End: true } }),
      ),
    ).toBe('created');
  });

  it('a `.$` key in a Result is data, not a call (recorded on AWS: test_base_scenarios.snapshot.json::test_escape_sequence_parsing[ESCAPE_SEQUENCES_STRING_LITERALS])', async () => {
    const result = {
      'not_an_intrinsic_function.$': 'States.StringToJson(\'{"text":"An \\"escaped double quote\\" here"}\')',
    };
    expect(
      (await engine.run(jsonpath({ TestEscapesResult: { Type: 'Pass', Result: result, End: true } }), {})).outcome,
    ).toEqual({ status: 'SUCCEEDED', output: result });
  });
});

describe('Task resources refused in AWS words', () => {
  it('.waitForTaskToken in an EXPRESS machine, whatever the service (recorded on AWS: test_sfn_api_express.snapshot.json::test_illegal_callbacks[WAIT_FOR_TASK_TOKEN])', async () => {
    const def = jsonpath({
      Publish: {
        Type: 'Task',
        Resource: 'arn:aws:states:::sns:publish.waitForTaskToken',
        Parameters: { 'TopicArn.$': '$.TopicArn', Message: { 'TaskToken.$': '$$.Task.Token' } },
        End: true,
      },
    });
    expect(await express.create(def)).toEqual(
      refusal(
        "SCHEMA_VALIDATION_FAILED: Express state machine does not support '.waitForTaskToken' service integration  at /States/Publish/Resource",
      ),
    );
  });

  it.each([
    ['states:startExecution.sync:2', "'.sync' service integration"],
    ['sqs:sendMessage.waitForTaskToken', "'.waitForTaskToken' service integration "],
  ])(
    '%s in the EXPRESS child workflows of a distributed Map of a STANDARD machine, refused as in an EXPRESS machine (the recorded words)',
    async (resource, what) => {
      const map = {
        Type: 'Map',
        End: true,
        ItemProcessor: {
          ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'EXPRESS' },
          StartAt: 'Child',
          States: { Child: { Type: 'Task', Resource: `arn:aws:states:::${resource}`, End: true } },
        },
      };
      expect(await engine.create(jsonpath({ Fanout: map }))).toEqual(
        refusal(
          `SCHEMA_VALIDATION_FAILED: Express state machine does not support ${what} at /States/Fanout/ItemProcessor/States/Child/Resource`,
        ),
      );
      // STANDARD children may wait.
      const standard = {
        ...map,
        ItemProcessor: { ...map.ItemProcessor, ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' } },
      };
      expect(await engine.create(jsonpath({ Fanout: standard }))).toBe('created');
    },
  );

  it('an Activity in an EXPRESS machine (recorded on AWS: test_sfn_api_express.snapshot.json::test_illegal_activity_task)', async () => {
    const def = jsonpath({
      ActivityTask: { Type: 'Task', Resource: 'arn:aws:states:us-east-1:111111111111:activity:activity-x', End: true },
    });
    expect(await express.create(def)).toEqual(
      refusal(
        'SCHEMA_VALIDATION_FAILED: Express state machine does not support Activity ARN at /States/ActivityTask/Resource',
      ),
    );
  });

  it('dynamodb:query, which is no optimized integration (recorded on AWS: test_dynamodb_task_service.snapshot.json::test_invalid_integration)', async () => {
    const def = jsonpath({
      Query: {
        Type: 'Task',
        Resource: 'arn:aws:states:::dynamodb:query',
        ResultPath: '$.queryItemOutput',
        Parameters: { 'TableName.$': '$.TableName' },
        End: true,
      },
    });
    expect(await engine.create(def)).toEqual(
      refusal(
        'SCHEMA_VALIDATION_FAILED: The resource provided arn:aws:states:::dynamodb:query is not recognized. The value is not a valid resource ARN, or the resource is not available in this region. at /States/Query/Resource',
      ),
    );
  });
});

describe('definition problems in the words and places AWS gives', () => {
  const validate = (definition: string, type = 'STANDARD') =>
    engine.harness.call('ValidateStateMachineDefinition', { definition, type });

  it('no States (recorded on AWS: test_sfn_api.snapshot.json::test_create_delete_invalid_sm)', async () => {
    expect(await engine.create({ Comment: 'BASE_INVALID_DER', StartAt: 'State_1' })).toEqual(
      refusal('SCHEMA_VALIDATION_FAILED: These fields are required: [States] at /'),
    );
  });

  // TestState validates the definition it is given with the state machine validator (its answers start
  // 'Invalid State Machine Definition'), so these recordings give the validator's words too.
  it('a state Type AWS does not know (recorded on AWS: test_state/test_test_state_machine_scenarios.snapshot.json::test_state_name_invalid_state_definition)', async () => {
    expect(
      await engine.create(jsonpath({ ExistingButInvalidState: { Type: 'TypeThatDoesNotExist', End: true } })),
    ).toEqual(
      refusal(
        "SCHEMA_VALIDATION_FAILED: The field 'Type' should have one of these values: [Task, Wait, Pass, Succeed, Fail, Choice, Parallel, Map] at /States/ExistingButInvalidState/Type",
      ),
    );
  });

  it('a Parallel with no Branches (recorded on AWS: test_state/test_state_mock_validation.snapshot.json::test_parallel_state_empty_branches)', async () => {
    expect(await engine.create(jsonpath({ StateName: { Type: 'Parallel', Branches: [], End: true } }))).toEqual(
      refusal('SCHEMA_VALIDATION_FAILED: Value cannot be empty at /States/StateName/Branches'),
    );
  });

  it.each(['STANDARD', 'EXPRESS'])(
    'no StartAt, validated for %s (recorded on AWS: test_sfn_api_validation.snapshot.json::test_validate_state_machine_definition_type_*[INVALID_BASE_NO_STARTAT])',
    async (type) => {
      expect(await validate(JSON.stringify({ States: { StartState: { Type: 'Pass', End: true } } }), type)).toEqual({
        result: 'FAIL',
        diagnostics: [
          {
            severity: 'ERROR',
            code: 'SCHEMA_VALIDATION_FAILED',
            message: 'These fields are required: [StartAt]',
            location: '/',
          },
        ],
        truncated: false,
      });
    },
  );

  it('{} (recorded on AWS: test_validate_state_machine_definition_not_a_definition[EMPTY_DICT])', async () => {
    expect((await validate('{}')).diagnostics).toEqual([
      {
        severity: 'ERROR',
        code: 'SCHEMA_VALIDATION_FAILED',
        message: 'These fields are required: [States, StartAt]',
        location: '/',
      },
    ]);
  });

  it('a blank definition (recorded on AWS: test_validate_state_machine_definition_not_a_definition[EMPTY_STRING])', async () => {
    expect((await validate(' ')).diagnostics).toEqual([
      { severity: 'ERROR', code: 'SCHEMA_VALIDATION_FAILED', message: 'Definition must be a valid JSON object' },
    ]);
  });

  it('text that is not JSON is INVALID_JSON_DESCRIPTION (recorded on AWS: test_validate_state_machine_definition_not_a_definition[NOT_A_DEF])', async () => {
    expect((await validate('not a definition')).diagnostics).toMatchObject([
      { severity: 'ERROR', code: 'INVALID_JSON_DESCRIPTION' },
    ]);
  });

  it('a JSONPath state in a JSONata machine (recorded on AWS: test_validate_state_machine_definition_type_*[INVALID_DOWNGRADE_QUERY_LANGUAGE])', async () => {
    const def = {
      StartAt: 'Pass',
      States: { Pass: { Type: 'Pass', End: true, QueryLanguage: 'JSONPath' } },
      QueryLanguage: 'JSONata',
    };
    expect((await validate(JSON.stringify(def))).diagnostics).toEqual([
      {
        severity: 'ERROR',
        code: 'SCHEMA_VALIDATION_FAILED',
        message: "'QueryLanguage' can not be 'JSONPath' if set to 'JSONata' for whole state machine",
        location: '/States/Pass',
      },
    ]);
  });

  it(".waitForTaskToken validated for EXPRESS (recorded on AWS: test_validate_state_machine_definition_type_express[ILLEGAL_WFTT]; AWS's message ends in a space)", async () => {
    const def = jsonpath({
      SendMessageWithWait: {
        Type: 'Task',
        Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
        Parameters: { QueueUrl: 'q', MessageBody: { 'TaskToken.$': '$$.Task.Token' } },
        End: true,
      },
    });
    expect((await validate(JSON.stringify(def), 'EXPRESS')).diagnostics).toEqual([
      {
        severity: 'ERROR',
        code: 'SCHEMA_VALIDATION_FAILED',
        message: "Express state machine does not support '.waitForTaskToken' service integration ",
        location: '/States/SendMessageWithWait/Resource',
      },
    ]);
  });
});
