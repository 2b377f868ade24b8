// One program per behaviour, chosen by the test's first word (TestJudgeLanguages).
use std::io::Read;

fn main() {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).unwrap();
    let mut words = input.split_whitespace();
    match words.next().unwrap_or("") {
        w @ ("ac" | "wa") => {
            let a: i64 = words.next().unwrap().parse().unwrap();
            let b: i64 = words.next().unwrap().parse().unwrap();
            println!("{}", a + b - if w == "wa" { 1 } else { 0 });
        }
        "cpus" => println!("{}", std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0)),
        "rte" => panic!("asked to fail"),
        "tle" => {
            let mut x: u64 = 0;
            while std::time::Instant::now().elapsed().as_nanos() < u128::MAX {
                x = x.wrapping_add(1);
            }
            println!("{}", x);
        }
        "mle" => {
            let mut keep: Vec<Vec<u8>> = Vec::new();
            loop {
                keep.push(vec![1u8; 1 << 20]);
            }
        }
        _ => std::process::exit(9),
    }
}
