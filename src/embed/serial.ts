// Runs async tasks one at a time, queries before passages: a search waits for at most the one
// batch already running, never for the rest of an upload.

type Priority = "query" | "passage";

interface Task {
  priority: Priority;
  start(): void;
}

export class SerialRunner {
  private readonly queue: Task[] = [];
  private busy = false;

  run<T>(priority: Priority, fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const task: Task = {
        priority,
        start: () => {
          Promise.resolve()
            .then(fn)
            .then(resolve, reject)
            .finally(() => {
            this.busy = false;
            this.next();
          });
        },
      };
      if (priority === "query") {
        const firstPassage = this.queue.findIndex((t) => t.priority === "passage");
        this.queue.splice(firstPassage < 0 ? this.queue.length : firstPassage, 0, task);
      } else {
        this.queue.push(task);
      }
      this.next();
    });
  }

  private next(): void {
    if (this.busy) return;
    const task = this.queue.shift();
    if (!task) return;
    this.busy = true;
    task.start();
  }
}
