/**
 * The CDK app (`cdk.json` "app"): `npx cdk synth` works offline with no credentials; `npx cdk deploy`
 * ships every workflow of statemachines/ with the functions of lambdas/. Deploy options come from
 * context: `-c autosave:rollout=canary`, `-c autosave:modelId=...` (see infra/deploy-options.ts).
 */
import { createAutosaveApp } from './create-app';
import { registeredFunctionSpecs, registeredWorkflowSpecs } from './registries';

const { app } = createAutosaveApp({ workflows: registeredWorkflowSpecs(), functions: registeredFunctionSpecs() });
app.synth();
