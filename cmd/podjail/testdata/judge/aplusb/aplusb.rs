use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let sum: i64 = s.split_whitespace().map(|w| w.parse::<i64>().unwrap()).sum();
    println!("{}", sum);
}
