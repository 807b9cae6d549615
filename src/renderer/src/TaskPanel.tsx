/** The task box. Disabled until the agent loop exists, and says so rather than failing on Run. */
export function TaskPanel() {
  return (
    <section className="panel" aria-labelledby="task-heading">
      <h2 id="task-heading">Task</h2>
      <form className="task-form" onSubmit={(event) => event.preventDefault()}>
        <input type="text" aria-label="Task" placeholder="Describe what Mnemo should do" disabled />
        <button type="submit" disabled>
          Run
        </button>
      </form>
      <p className="note">The agent loop arrives with the next milestone.</p>
    </section>
  );
}
