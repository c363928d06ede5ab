import { render } from "preact";

function App() {
  return <main>Agentbar</main>;
}

render(<App />, document.getElementById("app")!);
